// A second, deliberately odd implementation of the messaging API's transport
// for client tests: real HTTP on 127.0.0.1 (port 0) whose page envelopes, record
// wrappers and error bodies differ from the sandbox's, and which can answer
// 429, 5xx, reset the connection or stall, one scripted reply at a time.
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll } from "vitest";
import { MessagingClient, type MessagingClientOptions } from "../../src/api/client.ts";

export interface RecordedRequest {
  method: string;
  /** Path below /v1, without the query string, e.g. `/contacts/5`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: Buffer;
  /** The body parsed as JSON when it is JSON. */
  json?: unknown;
}

export interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow service; the client should time out). */
  delayMs?: number;
  /** Destroy the socket instead of answering (a connection reset). */
  reset?: boolean;
  /** Never answer (a hanging service); the socket stays open until the client gives up or the server closes. */
  hang?: boolean;
}

export type Handler = Reply | ((req: RecordedRequest) => Reply);

export interface OddServer {
  /** Base URL, ending with /v1 as the real one does. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Scripts the replies of `METHOD /path` (path below /v1): each request takes the next, the last repeats. */
  on(route: string, ...replies: Handler[]): void;
  /** Requests seen, optionally only those of `METHOD /path`. */
  count(route?: string): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startOddServer(): Promise<OddServer> {
  const routes = new Map<string, Handler[]>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const answer = (res: ServerResponse, req: IncomingMessage, reply: Reply) => {
    if (reply.reset) {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = { ...reply.headers };
    let payload = "";
    if (reply.json !== undefined) {
      headers["content-type"] ??= "application/json";
      payload = JSON.stringify(reply.json);
    } else if (reply.text !== undefined) {
      headers["content-type"] ??= "text/plain; charset=utf-8";
      payload = reply.text;
    }
    res.writeHead(reply.status ?? 200, headers);
    res.end(payload);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const path = url.pathname.replace(/^\/v1/, "");
      const body = Buffer.concat(chunks);
      const recorded: RecordedRequest = {
        method: req.method ?? "GET",
        path,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      if (String(req.headers["content-type"] ?? "").includes("json") && body.length > 0) {
        try {
          recorded.json = JSON.parse(body.toString("utf8"));
        } catch {
          recorded.json = undefined;
        }
      }
      requests.push(recorded);
      const queue = routes.get(`${recorded.method} ${path}`);
      let handler: Handler | undefined;
      if (queue && queue.length > 1) handler = queue.shift();
      else handler = queue?.[0];
      const reply: Reply = !handler
        ? { status: 404, json: { error: { message: `no route ${recorded.method} ${path}` } } }
        : typeof handler === "function"
          ? handler(recorded)
          : handler;
      if (reply.hang) {
        // Nothing: the request stays unanswered.
      } else if (reply.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) answer(res, req, reply);
        }, reply.delayMs);
        timers.add(t);
      } else {
        answer(res, req, reply);
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    on(route, ...replies) {
      routes.set(route, replies);
    },
    count(route) {
      if (!route) return requests.length;
      return requests.filter((r) => `${r.method} ${r.path}` === route).length;
    },
    reset() {
      routes.clear();
      requests.length = 0;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * One odd server for a test file (started before its tests, closed after
 * them) and a maker of clients on it with `defaults` (fast budgets, no
 * jitter): the clients are closed and the server's script cleared after each
 * test. `odd` stands for the server once started.
 */
export function useOddServer(defaults: Partial<MessagingClientOptions> & { apiKey: string }): {
  odd: OddServer;
  client(extra?: Partial<MessagingClientOptions>): MessagingClient;
  /** Closes `c` after the test, as the clients made by client() are. */
  closeAfterTest(c: MessagingClient): MessagingClient;
} {
  let server: OddServer | undefined;
  const clients: MessagingClient[] = [];
  const started = (): OddServer => {
    if (!server) throw new Error("the odd server is started in beforeAll");
    return server;
  };
  beforeAll(async () => {
    server = await startOddServer();
  });
  afterEach(async () => {
    started().reset();
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await server?.close();
  });
  const odd: OddServer = {
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    get requests() {
      return started().requests;
    },
    on: (route, ...replies) => started().on(route, ...replies),
    count: (route) => started().count(route),
    reset: () => started().reset(),
    close: () => started().close(),
  };
  const closeAfterTest = (c: MessagingClient) => {
    clients.push(c);
    return c;
  };
  return {
    odd,
    closeAfterTest,
    client: (extra = {}) =>
      closeAfterTest(
        new MessagingClient({
          baseUrl: odd.url,
          random: () => 0,
          // The budget itself is tested in rate-limit.test.ts; here it must not slow the tests.
          readPerMinute: 60_000,
          writePerMinute: 60_000,
          ...defaults,
          ...extra,
        }),
      ),
  };
}
