// A loopback proxy in front of the sandbox: counts every request, can play
// "API down" (failWith), can hold a request until the test lets it go, and can
// lose the answer of a request that reached the sandbox (drop), or answer
// chosen requests itself (answer).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface CountingProxy {
  /** Base URL ending in /v1, like the sandbox's. */
  url: string;
  /** The same server without the path, for a request path that already starts with /v1. */
  origin: string;
  /** Every request seen: method and path with query. */
  seen: string[];
  /** While set, every request is answered with this status (the API is "down"). */
  failWith?: number;
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** A promise to wait for before forwarding this request (say, until the test releases it); undefined: at once. */
  hold?: (method: string, url: string) => Promise<void> | undefined;
  /** True: forward this request, let the sandbox answer, then destroy the client's socket instead of answering. */
  drop?: (method: string, url: string) => boolean;
  /** An answer to give instead of forwarding this request (a 429, a 500…); undefined: forward it. */
  answer?: (
    method: string,
    url: string,
  ) => { status: number; headers?: Record<string, string>; body?: unknown } | undefined;
  /** The sandbox's answer to this request, changed (say, a name holding what the sandbox cannot store). */
  rewrite?: (method: string, url: string, body: string) => string;
}

/** A proxy on 127.0.0.1 that forwards to `target` (a base URL ending in /v1) and counts requests. */
export async function startProxy(target: string, opts: ProxyOptions = {}): Promise<CountingProxy> {
  const t = new URL(target);
  const state: CountingProxy = { url: "", origin: "", seen: [], close: async () => {} };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    state.seen.push(`${req.method} ${req.url}`);
    if (state.failWith) {
      res.writeHead(state.failWith, { "content-type": "application/json" });
      res.end(JSON.stringify({ statusCode: state.failWith, message: "Service Unavailable" }));
      req.resume();
      return;
    }
    const answer = opts.answer?.(req.method ?? "GET", req.url ?? "/");
    if (answer) {
      req.resume();
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(JSON.stringify(answer.body ?? { statusCode: answer.status, message: "Refused by the test" }));
      return;
    }
    const held = opts.hold?.(req.method ?? "GET", req.url ?? "/");
    if (held) await held;
    const up = httpRequest(
      {
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: t.host },
      },
      (upRes) => {
        if (opts.drop?.(req.method ?? "GET", req.url ?? "/")) {
          upRes.resume();
          upRes.on("end", () => req.socket.destroy());
          return;
        }
        // Hop-by-hop headers stay on their hop: the upstream's keep-alive timeout is not this server's.
        const { connection: _c, "keep-alive": _k, ...headers } = upRes.headers;
        const rewrite = opts.rewrite;
        if (rewrite) {
          const chunks: Buffer[] = [];
          upRes.on("data", (c: Buffer) => chunks.push(c));
          upRes.on("end", () => {
            const body = Buffer.from(
              rewrite(req.method ?? "GET", req.url ?? "/", Buffer.concat(chunks).toString("utf8")),
            );
            const { "content-length": _l, "transfer-encoding": _t, ...rest } = headers;
            res.writeHead(upRes.statusCode ?? 502, { ...rest, "content-length": String(body.length) });
            res.end(body);
          });
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, headers);
        upRes.pipe(res);
      },
    );
    up.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  state.origin = `http://127.0.0.1:${port}`;
  state.url = `${state.origin}${t.pathname.replace(/\/$/, "")}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
