// One attempt of one delivery (issue 40 §3, Delivery): a POST with undici,
// 10 s at most, no redirect followed, the connection's address checked
// (address.ts). A plain endpoint gets the JSON event signed
// (`Switchboard-Signature: t=<unix>,v1=<hex>`, HMAC-SHA256 of `t.body`); a
// Slack workflow's trigger the event's flat variables. The outcome says
// whether to try again: 5xx, 408, 429 and no answer are retried, another 4xx
// is not, and a 429's Retry-After is honoured.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Agent } from "undici";
import { type AddressRules, addressProblem, safeLookup } from "./address.ts";
import { type SwitchboardEvent, workflowBody } from "./events.ts";

export const SIGNATURE_HEADER = "Switchboard-Signature";
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** A new secret for an endpoint (shown once). */
export const newSecret = () => `whsec_${randomBytes(24).toString("base64url")}`;

/** The signature header's value for `body` sent at `unixSeconds`. */
export function signatureOf(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}

/** A receiver's check (docs/automations.md shows the same): the header matches the body, within `toleranceSeconds`. */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.trim().split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isSafeInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !parts.v1) return false;
  const expected = Buffer.from(signatureOf(secret, t, body).split("v1=")[1] ?? "", "hex");
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export type AttemptResult =
  | { kind: "delivered"; status: number }
  /** Try again (after `retryAfterMs` when the receiver said so). */
  | { kind: "retry"; detail: string; retryAfterMs?: number }
  /** Not retried: the receiver refused it (another 4xx), or the address is refused. */
  | { kind: "refused"; detail: string };

export interface Target {
  url: string;
  kind: "endpoint" | "workflow";
  secret: string | null;
}

/** The Retry-After header in milliseconds (seconds or an HTTP date), capped at an hour. */
function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const seconds = /^\s*\d+\s*$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), 3_600_000) : undefined;
}

/**
 * undici's index (its Agent; with it fetch, WebSocket, caches and mocks), loaded at the first delivery: a
 * process that delivers nothing, the shell, never loads it.
 */
let undici: Promise<typeof import("undici")> | undefined;
const loadUndici = () => {
  undici ??= import("undici");
  return undici;
};

/** The agent of one address rule set: connections checked at lookup, kept alive, per origin. */
const agents = new Map<boolean, Agent>();
async function agentFor(rules: AddressRules): Promise<Agent> {
  const { Agent } = await loadUndici();
  let agent = agents.get(rules.allowPrivate);
  if (!agent) {
    agent = new Agent({
      connect: { lookup: safeLookup(rules), timeout: ATTEMPT_TIMEOUT_MS },
      connections: 16,
      keepAliveTimeout: 10_000,
    });
    agents.set(rules.allowPrivate, agent);
  }
  return agent;
}

/** One POST of `event` to `target`; never throws. */
export async function attempt(
  target: Target,
  event: SwitchboardEvent,
  rules: AddressRules,
  now = new Date(),
  timeoutMs = ATTEMPT_TIMEOUT_MS,
): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return { kind: "refused", detail: "the stored address is not a URL" };
  }
  const problem = await addressProblem(url, rules);
  if (problem) return { kind: "refused", detail: problem.replace(url.hostname, "the host") };
  const body = JSON.stringify(target.kind === "workflow" ? workflowBody(event) : event);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Switchboard-Automations/1",
  };
  if (target.kind === "endpoint" && target.secret)
    headers[SIGNATURE_HEADER.toLowerCase()] = signatureOf(
      target.secret,
      Math.floor(now.getTime() / 1000),
      body,
    );
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const { request } = await loadUndici();
    const dispatcher = await agentFor(rules);
    const res = await request(url, {
      method: "POST",
      headers,
      body,
      dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // undici's request follows no redirect: a 3xx is an answer like any other.
    });
    await res.body.dump().catch(() => {});
    const status = res.statusCode;
    if (status >= 200 && status < 300) return { kind: "delivered", status };
    if (status >= 500 || status === 408 || status === 429) {
      const after = status === 429 ? retryAfterMs(res.headers["retry-after"], now.getTime()) : undefined;
      return {
        kind: "retry",
        detail: `HTTP ${status}`,
        ...(after !== undefined ? { retryAfterMs: after } : {}),
      };
    }
    return { kind: "refused", detail: `HTTP ${status}` };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "EPRIVATEADDRESS")
      return { kind: "refused", detail: "the host resolves to a private address" };
    if (signal.aborted) return { kind: "retry", detail: `no answer within ${timeoutMs / 1000} s` };
    return { kind: "retry", detail: `no answer (${code ?? "connection failed"})` };
  }
}
