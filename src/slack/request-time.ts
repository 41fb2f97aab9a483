// Slack signs `v0:<timestamp>:<body>`; a signed request is good only near the
// time it carries. Bolt's HTTP receiver refuses timestamps more than five
// minutes in the past but not in the future, so a request signed (or replayed
// with a clock set) ahead would stay valid until that time came. This guard
// runs before Bolt's and refuses both sides.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "../platform/log.ts";
import type { EventStore } from "./io/event-store.ts";

/** How far a request's timestamp may be from our clock, either side. */
export const MAX_REQUEST_SKEW_S = 5 * 60;

/** Why a request's timestamp is refused, or undefined when it is near enough (or absent: Bolt refuses that). */
export function timestampProblem(header: string | string[] | undefined, nowMs: number): string | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header[0] : header;
  if (!text || !/^\d+$/.test(text)) return "x-slack-request-timestamp is not a number of seconds";
  const skew = Number(text) - Math.floor(nowMs / 1000);
  if (skew > MAX_REQUEST_SKEW_S) return `x-slack-request-timestamp is ${skew} s in the future`;
  if (skew < -MAX_REQUEST_SKEW_S) return `x-slack-request-timestamp is ${-skew} s in the past`;
  return undefined;
}

/** Wraps the receiver's listener: a POST whose timestamp is too far either side gets a 401, as a bad signature does. */
export function refuseSkewedRequests(
  listener: RequestListener,
  logger: Logger,
  now: () => number = Date.now,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const problem =
      req.method === "POST" ? timestampProblem(req.headers["x-slack-request-timestamp"], now()) : undefined;
    if (!problem) {
      listener(req, res);
      return;
    }
    logger.warn({ url: req.url, problem }, "refused a Slack request: its timestamp is not within 5 minutes");
    req.resume();
    res.writeHead(401);
    res.end();
  };
}

/**
 * Wraps the receiver's listener: a signed POST whose signature was seen before
 * (a signature is good for 5 minutes either side of its timestamp) is a replay
 * of a captured request and gets a 401. Signatures are claimed in the event
 * store (io/event-store.ts: shared by replicas on PostgreSQL; memory in front of
 * the embedded database, which also refuses a request signed before its process started). Slack's own retries of events carry X-Slack-Retry-Num
 * and pass (the event id dedupes them); commands and clicks are never retried by
 * Slack.
 */
export function refuseReplayedRequests(
  listener: RequestListener,
  seen: Pick<EventStore, "claimSignature">,
  logger: Logger,
): RequestListener {
  const refuse = (req: IncomingMessage, res: ServerResponse) => {
    logger.warn({ url: req.url }, "refused a Slack request: its signature was already used (a replay)");
    req.resume();
    res.writeHead(401);
    res.end();
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers["x-slack-signature"];
    const signature = Array.isArray(header) ? header[0] : header;
    if (req.method !== "POST" || !signature || req.headers["x-slack-retry-num"] !== undefined) {
      listener(req, res);
      return;
    }
    const stamp = req.headers["x-slack-request-timestamp"];
    const timestampS = typeof stamp === "string" && /^\d+$/.test(stamp) ? Number(stamp) : undefined;
    let first: boolean | Promise<boolean>;
    try {
      first = seen.claimSignature(signature, timestampS);
    } catch {
      first = Promise.reject(new Error("signature store failed"));
    }
    if (typeof first === "boolean") {
      if (first) listener(req, res);
      else refuse(req, res);
      return;
    }
    first.then(
      (ok) => (ok ? listener(req, res) : refuse(req, res)),
      // The store does not answer: better to serve than to refuse everyone (the timestamp still limits a replay).
      () => listener(req, res),
    );
  };
}
