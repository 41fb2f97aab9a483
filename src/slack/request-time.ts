// Slack signs `v0:<timestamp>:<body>`; a signed request is good only near the
// time it carries. Bolt's HTTP receiver refuses timestamps more than five
// minutes in the past but not in the future, so a request signed (or replayed
// with a clock set) ahead would stay valid until that time came. This guard
// runs before Bolt's and refuses both sides.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "../log.ts";

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
