// Slack signs `v0:<timestamp>:<body>`; a signed request is good only near the
// time it carries. Bolt's HTTP receiver refuses timestamps more than five
// minutes in the past but not in the future, so a request signed (or replayed
// with a clock set) ahead would stay valid until that time came. This guard
// runs before Bolt's and refuses both sides.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Logger } from "../platform/log.ts";

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

/** The workspace of the signatures' rows: none yet (see refuseReplayedRequests). */
export const SIGNATURE_WORKSPACE: WorkspaceId = "";

/**
 * Wraps the receiver's listener: a signed POST whose signature was seen before
 * (within the day the store keeps ids; a signature is good for 5 minutes) is
 * a replay of a captured request and gets a 401. Signatures are claimed in the
 * same store as event ids (`sig:` + signature), so replicas share them. Slack's
 * own retries of events carry X-Slack-Retry-Num and pass (the event id dedupes them);
 * commands and clicks are never retried by Slack. The request is not read
 * yet, so its workspace is not known: a signature's row carries
 * SIGNATURE_WORKSPACE (a day's replay guard, no workspace's record).
 */
export function refuseReplayedRequests(
  listener: RequestListener,
  seen: { claim(id: string, workspace: WorkspaceId): Promise<boolean> },
  logger: Logger,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers["x-slack-signature"];
    const signature = Array.isArray(header) ? header[0] : header;
    if (req.method !== "POST" || !signature || req.headers["x-slack-retry-num"] !== undefined) {
      listener(req, res);
      return;
    }
    seen.claim(`sig:${signature}`, SIGNATURE_WORKSPACE).then(
      (first) => {
        if (first) return listener(req, res);
        logger.warn({ url: req.url }, "refused a Slack request: its signature was already used (a replay)");
        req.resume();
        res.writeHead(401);
        res.end();
      },
      // The store does not answer: better to serve than to refuse everyone (the timestamp still limits a replay).
      () => listener(req, res),
    );
  };
}
