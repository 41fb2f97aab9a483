// An answer on a response_url (Bolt's respond: a JSON string POSTed through
// the app's fetch) goes through node:http rather than undici (bridge.ts says
// why: garbage that outlives two young collections). It must still answer as
// fetch would: the body and headers sent as given, the status, its text, the
// headers and the body of the answer, a refused answer as a status (Bolt turns
// it into RespondError), a connection that fails as a rejection.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countedFetch } from "../../src/slack/io/bridge.ts";
import { FakeSlack } from "../fakes/slack.ts";

interface Seen {
  method?: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
/** What the next request is answered: status, headers, body. */
let answer: { status: number; headers?: Record<string, string | string[]>; body?: string } = { status: 200 };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (url: string, body: string) =>
  countedFetch()(url, { method: "POST", headers: { "Content-Type": "application/json" }, body });

describe("a response_url post", () => {
  it("sends the body and its headers as given, and answers with the status, headers and body", async () => {
    answer = { status: 200, headers: { "content-type": "text/plain", "x-two": ["a", "b"] }, body: "ok" };
    const body = JSON.stringify({ text: "Voilà — ✅ done", response_type: "ephemeral" });
    const res = await post(`${base}/commands/T1/1/abc?x=1`, body);
    const got = seen.at(-1) as Seen;
    expect(got.method).toBe("POST");
    expect(got.body).toBe(body);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.statusText).toBe("OK");
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(res.headers.get("x-two")).toBe("a, b");
    expect(await res.text()).toBe("ok");
  });

  it("answers a refusal as its status and text, not as a rejection", async () => {
    answer = { status: 404, body: "expired_url" };
    const res = await post(`${base}/commands/T1/2/def`, "{}");
    expect(res.ok).toBe(false);
    expect(res.status).toBe(404);
    expect(res.statusText).toBe("Not Found");
    expect(await res.text()).toBe("expired_url");
  });

  it("answers a 204 with no body, as fetch would", async () => {
    answer = { status: 204 };
    const res = await post(`${base}/commands/T1/3/ghi`, "{}");
    expect(res.status).toBe(204);
    expect((res as Response).body).toBeNull();
  });

  it("rejects when the connection fails", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(post(`http://127.0.0.1:${port}/commands/x`, "{}")).rejects.toThrow();
  });

  it("does not reuse a socket idle past the keep-alive the server announced", async () => {
    let connections = 0;
    const short = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    short.keepAliveTimeout = 2000; // announced as `Keep-Alive: timeout=2`: the client lets go after 1 s
    short.on("connection", () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => short.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(short.address() as AddressInfo).port}/commands/T1/5/mno`;
    try {
      const first = await post(url, "{}");
      expect(first.headers.get("keep-alive")).toBe("timeout=2");
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await post(url, "{}")).status).toBe(200);
      // Past the announced keep-alive less a second: a new connection, not the one the server may close.
      expect(connections).toBe(2);
    } finally {
      short.closeAllConnections();
      await new Promise<void>((resolve) => short.close(() => resolve()));
    }
  });

  it("sends once more on a new socket when a kept-alive socket was closed under it, never on a new one", async () => {
    // A server that closes a kept-alive connection as the next request arrives (its idle timeout, met at the
    // moment the client reused the socket): the request fails with ECONNRESET, having read nothing.
    const requests = new WeakMap<object, number>();
    let reads = 0;
    let resetFresh = false;
    const stale = createServer((req, res) => {
      const n = (requests.get(req.socket) ?? 0) + 1;
      requests.set(req.socket, n);
      if (n > 1 || resetFresh) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on("end", () => {
        reads += 1;
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => stale.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(stale.address() as AddressInfo).port}/commands/T1/4/jkl`;
    try {
      expect((await post(url, "{}")).status).toBe(200);
      // The second post goes out on the kept socket, which the server resets: sent again on a new one.
      const again = await post(url, "{}");
      expect(again.status).toBe(200);
      expect(await again.text()).toBe("ok");
      expect(reads).toBe(2);
      // A reset on a socket just opened is an answer of the server's: told, not sent again.
      resetFresh = true;
      stale.closeAllConnections();
      await expect(post(url, "{}")).rejects.toThrow();
      expect(reads).toBe(2);
    } finally {
      stale.closeAllConnections();
      await new Promise<void>((resolve) => stale.close(() => resolve()));
    }
  });

  it("is the fetch Bolt's respond is given: an answer reaches the fake Slack's response_url", async () => {
    const fake = await FakeSlack.start();
    try {
      const app = new App({
        token: fake.botToken,
        signingSecret: "s",
        tokenVerificationEnabled: false,
        clientOptions: { fetch: countedFetch(fake.apiUrl.replace(/\/?$/, "/")), slackApiUrl: fake.apiUrl },
      });
      const fetchFn = (app as unknown as { fetchFn: typeof fetch }).fetchFn;
      const url = fake.newResponseUrl();
      const res = await fetchFn(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text: "answered" }),
      });
      expect(res.status).toBe(200);
      expect(fake.responsesTo(url).map((r) => (r.body as { text?: string }).text)).toEqual(["answered"]);
    } finally {
      await fake.close();
    }
  });
});
