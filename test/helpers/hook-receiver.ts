// A webhook receiver on 127.0.0.1 for the automations' tests: it records
// every request (body, headers, when) and answers each with the status the
// test chooses; `automationsEnv()` is what a stack needs to deliver to it.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedHook {
  body: string;
  headers: IncomingMessage["headers"];
  at: number;
}

export interface HookReceiver {
  /** `http://127.0.0.1:<port>`, for a path of the test's own. */
  base: string;
  /** A hook URL on it with a random path. */
  url: string;
  /** Every request received, oldest first. */
  got: ReceivedHook[];
  close(): Promise<void>;
}

/**
 * Starts a receiver answering the n-th request (1 for the first) with `status(n)`;
 * a 429 says Retry-After: `retryAfter` seconds when given.
 */
export async function startHookReceiver(
  status: (n: number) => number = () => 200,
  retryAfter?: number,
): Promise<HookReceiver> {
  const got: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      got.push({ body, headers: req.headers, at: Date.now() });
      res.statusCode = status(got.length);
      if (res.statusCode === 429 && retryAfter !== undefined)
        res.setHeader("retry-after", String(retryAfter));
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: `${base}/hook/${randomBytes(8).toString("hex")}`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The settings a stack needs to deliver to a loopback receiver: a secret key for the hooks' secrets, private addresses allowed. */
export const automationsEnv = (): Record<string, string> => ({
  SWITCHBOARD_SECRET_KEY: randomBytes(32).toString("base64"),
  AUTOMATIONS_ALLOW_PRIVATE: "1",
});
