// What a listener can reach at run time, not only by its types (issue 38 §3;
// the types are test/architecture/listener-types.ts). In many-workspace mode,
// two workspaces: a listener registered raw on the Bolt app (as no listener of
// Switchboard's is: test/architecture/listeners.test.ts) finds on Bolt's
// `context`, whatever it casts it to, neither the database nor a source of
// workspaces; a listener's `ctx.config` is an object of the deployment's own
// settings, without a workspace's (MESSAGING_CHANNEL_ID) or a secret
// (MESSAGING_API_KEY); `ctx.events` claims for the request's workspace only;
// and a workspace's background job (src/workspaces/work.ts) is given its
// workspace's reach and the settings it reads, no database.
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Reach } from "../../src/slack/context.ts";
import { onCommand } from "../../src/slack/listeners/on.ts";
import { jobConfig, jobOf } from "../../src/workspaces/work.ts";
import { eventually } from "../helpers/eventually.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let s: WorkspacesStack;
/** What the probe listeners were handed, by the text of the command that reached them. */
const boltContexts = new Map<string, Record<string | symbol, unknown>>();
const reaches = new Map<string, Reach>();

beforeAll(async () => {
  s = await startWorkspacesStack({ teams: 2, connect: "key" });
  // A test-only listener on Bolt itself, reading Bolt's own `context` as a listener that cast it could.
  s.slack.app.command(
    "/probe",
    async ({ ack, command, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
      boltContexts.set(command.text, context as unknown as Record<string | symbol, unknown>);
      await ack().catch(() => {});
    },
  );
  // And one through the typed wrapper, as every listener of Switchboard's is registered.
  onCommand(s.slack.app, "/probe", ({ command, ctx }) => {
    reaches.set(command.text, ctx);
  });
}, 120_000);

afterAll(async () => {
  await s?.close();
});

/** Sends `/probe <text>` from a workspace and waits for both probes to have seen it. */
async function probe(ws: WorkspacesStack["workspaces"][number], text: string) {
  await ws.req.command(text, { command: "/probe", user: ws.user });
  return eventually(() => {
    const context = boltContexts.get(text);
    const reach = reaches.get(text);
    if (!context || !reach) throw new Error("the probes were not reached yet");
    return { context, reach };
  });
}

/**
 * Every path from `root` through own members (string or symbol keys, enumerable or not: what `as any` and
 * Reflect reach) to an object that `bad` names, up to `depth` steps.
 */
function pathsTo(
  root: unknown,
  bad: (value: object) => string | undefined,
  depth: number,
  name = "context",
): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const walk = (value: unknown, path: string, left: number): void => {
    if (typeof value !== "object" || value === null || seen.has(value)) return;
    seen.add(value);
    const why = bad(value);
    if (why) found.push(`${path}: ${why}`);
    if (left === 0) return;
    for (const key of Reflect.ownKeys(value)) {
      let member: unknown;
      try {
        member = (value as Record<string | symbol, unknown>)[key];
      } catch {
        continue;
      }
      walk(member, `${path}.${String(key)}`, left - 1);
    }
  };
  walk(root, name, depth);
  return found;
}

/** A database handle, whoever holds it: its kind and a query function (src/store/db.ts). */
const isDb = (v: object): boolean =>
  ["pglite", "postgres"].includes((v as { kind?: unknown }).kind as string) &&
  typeof (v as { query?: unknown }).query === "function";

/** What no listener and no workspace's job may reach: the database, the source of every workspace, the whole config. */
function forbiddenIn(): (value: object) => string | undefined {
  const forbidden = new Map<object, string>([
    [s.sb.db, "the database"],
    [s.sb.workspaces, "the registry of every workspace"],
    [s.sb.installations, "every installation"],
    [s.config, "the deployment's whole config"],
  ]);
  if (s.slack.services.db) forbidden.set(s.slack.services.db, "the database");
  forbidden.set(s.slack.services.workspaces, "the source of every workspace");
  forbidden.set(s.slack.services, "the deployment's services");
  return (v: object): string | undefined =>
    forbidden.get(v) ??
    (typeof (v as { scopeOf?: unknown }).scopeOf === "function"
      ? "a source of workspaces (scopeOf)"
      : isDb(v)
        ? "a database"
        : undefined);
}

describe("what a listener can reach, at run time", () => {
  it("Bolt's context holds neither the database nor a source of workspaces, even cast", async () => {
    const [a] = s.workspaces;
    const { context } = await probe(a!, "raw");
    expect(context.db).toBeUndefined();
    expect(context.workspaces).toBeUndefined();
    expect(context.lifecycle).toBeUndefined();
    // Bolt's context and what hangs off it, six steps deep through own members: the Reach, its core, its
    // services and their members' members. Not walked: a store a WorkspaceStores getter makes. A store keeps
    // its database in a field TypeScript calls private (PerWorkspace's `db`), which a cast still reaches:
    // closing that (a #private field in every store) is left to do.
    expect(pathsTo(context, forbiddenIn(), 6)).toEqual([]);
  });

  it("ctx.config is the deployment's own settings, as an object of their own", async () => {
    const [a] = s.workspaces;
    const { reach } = await probe(a!, "config");
    const config = reach.config as Record<string, unknown>;
    expect(config).not.toBe(s.config);
    for (const key of [
      "MESSAGING_CHANNEL_ID",
      "MESSAGING_API_KEY",
      "SLACK_CLIENT_SECRET",
      "SWITCHBOARD_SECRET_KEY",
    ])
      expect(key in config, key).toBe(false);
    expect(Object.keys(config).sort()).toEqual(
      [
        "IMPORT_MAX_BYTES",
        "IMPORT_TIMEOUT_MS",
        "MEDIA_MAX_DOCUMENT_MB",
        "MEDIA_MAX_IMAGE_MB",
        "MEDIA_TTL_HOURS",
        "PUBLIC_URL",
        "SLACK_API_URL",
      ].filter((key) => (s.config as Record<string, unknown>)[key] !== undefined),
    );
    expect(config.IMPORT_MAX_BYTES).toBe(s.config.IMPORT_MAX_BYTES);
  });

  it("ctx.events claims for the request's own workspace, whatever it is given", async () => {
    const [a, b] = s.workspaces;
    const { reach } = await probe(a!, "events");
    const other = b!.team.teamId;
    const events = reach.events as unknown as { claim(id: string, workspace?: string): Promise<boolean> };
    // A listener naming another workspace (a cast, or the old signature) still claims in its own.
    expect(await events.claim("Ev-reach-1", other)).toBe(true);
    expect(await s.slack.services.events.seen("Ev-reach-1", other)).toBe(false);
    expect(await s.slack.services.events.seen("Ev-reach-1", reach.workspace)).toBe(true);
    expect(await reach.events.seen("Ev-reach-1")).toBe(true);
    expect(reach.workspace).toBe(a!.team.teamId);
  });

  it("a workspace's background job is given its workspace's reach: no database, no source, no key", async () => {
    const [a] = s.workspaces;
    const rt = await s.sb.workspaces.runtime(a!.team.teamId);
    if (!rt?.slack) throw new Error("workspace A has no runtime with a Slack bridge");
    const job = jobOf(rt, rt.slack);
    expect(job.workspace).toBe(a!.team.teamId);
    expect(job.stores).toBe(rt.stores);
    for (const key of ["db", "apiKey", "workspaces", "config"]) expect(key in job, key).toBe(false);
    // Its own members (the same gap as above below them: its report service's store keeps the database in a
    // TypeScript-private field).
    expect(pathsTo(job, forbiddenIn(), 1, "job")).toEqual([]);
    const config = jobConfig(s.config) as Record<string, unknown>;
    for (const key of ["MESSAGING_CHANNEL_ID", "MESSAGING_API_KEY", "SWITCHBOARD_SECRET_KEY", "DATABASE_URL"])
      expect(key in config, key).toBe(false);
    expect(config.INBOX_POLL_SECONDS).toBe(s.config.INBOX_POLL_SECONDS);
  });
});
