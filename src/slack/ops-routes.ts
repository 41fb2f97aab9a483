// The operators' routes on PORT, in both modes (docs/operations.md):
//   GET /healthz  alive (no check: a restart would not help anything it could find)
//   GET /readyz   the store answers (503 otherwise), and whether Slack and the
//                 messaging API answer, each with its reason (cached)
//   GET /metrics  Prometheus text (src/platform/metrics.ts); METRICS_TOKEN, when set, as a bearer token
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CustomRoute } from "@slack/bolt";
import type { Logger } from "../platform/log.ts";
import { metricsText } from "../platform/metrics.ts";
import { type Db, ping } from "../store/db.ts";

/** One dependency's state for /readyz: `ok`, or why not. */
export interface Check {
  ok: boolean;
  reason?: string;
}

/** Checks of Slack and the messaging API; their failure is reported, not fatal to readiness. */
export interface ReadinessChecks {
  slack?: () => Promise<void>;
  api?: () => Promise<void>;
  /**
   * Many workspaces: how many are installed, connected, and failing (installed
   * without a usable bot token: revoked, or a refresh that failed). Counted,
   * not a reason to be unready: one workspace's trouble is not the node's.
   */
  workspaces?: () => Promise<Record<string, number>>;
}

/** How long a check's answer is reused: a load balancer polling /readyz must not become traffic to Slack. */
export const CHECK_CACHE_MS = 30_000;

/** `fn` run at most once per `ttlMs`, its outcome (success or reason) cached. */
export function cachedCheck(
  fn: () => Promise<void>,
  ttlMs = CHECK_CACHE_MS,
  now = Date.now,
): () => Promise<Check> {
  let at = Number.NEGATIVE_INFINITY;
  let last: Promise<Check> | undefined;
  return () => {
    if (!last || now() - at >= ttlMs) {
      at = now();
      last = fn().then(
        () => ({ ok: true }),
        (err: unknown) => ({ ok: false, reason: reasonOf(err) }),
      );
    }
    return last;
  };
}

function reasonOf(err: unknown): string {
  const e = err as { data?: { error?: unknown }; message?: unknown };
  if (typeof e?.data?.error === "string") return `Slack answered ${e.data.error}`;
  return typeof e?.message === "string" ? e.message.slice(0, 200) : "no answer";
}

const json = (res: ServerResponse, status: number, body: object) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

export function healthz(): CustomRoute {
  return {
    path: "/healthz",
    method: ["GET"],
    handler: (_req: IncomingMessage, res: ServerResponse) => json(res, 200, { ok: true }),
  };
}

/**
 * GET /readyz: ready to serve when the store answers (a load balancer sends
 * traffic only then); 503 with the reason otherwise. Slack and the messaging
 * API are reported beside it: when they fail, Switchboard still answers
 * people (in words), so readiness does not depend on them.
 */
export function readyz(db: Db | undefined, logger: Logger, checks: ReadinessChecks = {}): CustomRoute {
  const slack = checks.slack && cachedCheck(checks.slack);
  const api = checks.api && cachedCheck(checks.api);
  return {
    path: "/readyz",
    method: ["GET"],
    handler: (_req: IncomingMessage, res: ServerResponse) => {
      const store: Promise<Check> = db
        ? ping(db).then(
            () => ({ ok: true }),
            (err: unknown) => {
              logger.warn({ err: (err as Error).message }, "not ready: the database does not answer");
              return { ok: false, reason: "the database does not answer" };
            },
          )
        : Promise.resolve({ ok: true });
      const counted = checks.workspaces?.().catch(() => undefined);
      Promise.all([store, slack?.(), api?.(), counted]).then(([s, sl, a, w]) => {
        json(res, s.ok ? 200 : 503, {
          ready: s.ok,
          ...(s.ok ? {} : { reason: s.reason }),
          checks: {
            store: s,
            ...(sl ? { slack: sl } : {}),
            ...(a ? { messagingApi: a } : {}),
            ...(w ? { workspaces: w } : {}),
          },
        });
      });
    },
  };
}

export function metricsRoute(token: string | undefined): CustomRoute {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return {
    path: "/metrics",
    method: ["GET"],
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (expected) {
        const given = Buffer.from(req.headers.authorization ?? "");
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          res.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" });
          res.end("METRICS_TOKEN is set: send it as Authorization: Bearer <token>\n");
          return;
        }
      }
      metricsText().then(
        ({ contentType, body }) => {
          res.writeHead(200, { "content-type": contentType });
          res.end(body);
        },
        () => {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end("metrics could not be collected\n");
        },
      );
    },
  };
}
