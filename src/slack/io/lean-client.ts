// A workspace's bot client without its ~280 bound methods (issue 38 §7). A WebClient binds every Web API
// method when it is made (`client.chat.postMessage` is `apiCall.bind(client, "chat.postMessage")`, in some 30
// namespace objects): ~30 KiB a client, kept for its life. With many workspaces each asking Slack something
// (`/sb help` asks users.info whether the person may administer), that was 1,000 workspaces' largest part
// (docs/benchmarks.md). Here a client keeps only the namespaces it uses, made at their first read from
// one table of method names for the process; every call still goes through the client's own `apiCall`
// (its token, its request queue and its pause on a rate limit), so nothing of one workspace reaches another.
import { webApi } from "@slack/bolt";

/** A namespace's shape: each member a Web API method's name, an own method of the client's, or a namespace. */
type Shape = { [member: string]: string | { own: string } | Shape };

/** The namespaces of a WebClient and their methods' names, read once from a client whose calls return the name. */
const SHAPES: ReadonlyMap<string, Shape> = (() => {
  class Probe extends webApi.WebClient {
    override apiCall(method: string): never {
      return method as never;
    }
    override filesUploadV2(): never {
      return { own: "filesUploadV2" } as never;
    }
  }
  const probe = new Probe() as unknown as Record<string, unknown>;
  const shapeOf = (value: unknown): Shape | undefined => {
    if (!value || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype)
      return undefined;
    const shape: Shape = {};
    for (const [member, inner] of Object.entries(value)) {
      const named = typeof inner === "function" ? (inner as () => unknown)() : shapeOf(inner);
      if (!named) return undefined;
      shape[member] = named as Shape[string];
    }
    return shape;
  };
  const shapes = new Map<string, Shape>();
  for (const [key, value] of Object.entries(probe)) {
    const shape = shapeOf(value);
    if (shape && Object.keys(shape).length) shapes.set(key, shape);
  }
  return shapes;
})();

/** The members of `shape`, each calling `client` now (its `apiCall`, read at the call as a bound method would). */
function namespaceOf(client: LeanWebClient, shape: Shape): object {
  const made: Record<string, unknown> = {};
  for (const [member, named] of Object.entries(shape)) {
    if (typeof named === "string")
      made[member] = (options?: Record<string, unknown>) => client.apiCall(named, options);
    else if ("own" in named && typeof named.own === "string") {
      const own = named.own as "filesUploadV2";
      made[member] = (options: never) => client[own](options);
    } else made[member] = namespaceOf(client, named as Shape);
  }
  return made;
}

/**
 * A WebClient whose method namespaces (`chat`, `users`, `views`, …) are made at their first read, each once
 * for this client: the bound ones the WebClient's constructor made are dropped before anything can hold one.
 */
export class LeanWebClient extends webApi.WebClient {
  /** The namespaces read so far, this client's own. */
  private readonly namespaces = new Map<string, object>();

  constructor(token?: string, options?: webApi.WebClientOptions) {
    super(token, options);
    for (const key of SHAPES.keys()) delete (this as unknown as Record<string, unknown>)[key];
  }

  static {
    for (const key of SHAPES.keys())
      Object.defineProperty(LeanWebClient.prototype, key, {
        get(this: LeanWebClient) {
          return this.namespace(key);
        },
        configurable: true,
      });
  }

  /** The namespace `key`, made now if this client has not read it yet. */
  private namespace(key: string): object {
    let made = this.namespaces.get(key);
    if (!made) {
      made = namespaceOf(this, SHAPES.get(key) as Shape);
      this.namespaces.set(key, made);
    }
    return made;
  }
}
