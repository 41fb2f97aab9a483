// The audit of every write: a hook on the client's transport around each
// request that is not a GET, one row per write that reached the API (and the
// onAudit hook: the Slack side posts it to AUDIT_CHANNEL). Input the client
// refuses before any request never reaches the hook, so it is not audited.
import { isApiError } from "../../api/errors.ts";
import type { MessagingApi } from "../../api/types.ts";
import type { Logger } from "../../platform/log.ts";
import type { AuditEntry, AuditLog } from "../../store/audit.ts";
import { show } from "../render.ts";
import type { Actor } from "../types.ts";

const SECRET_OPTION = /(secret|token|password|key)=("[^"]*"|\S+)/gi;

/** The API's answer, small enough for an audit row and a log line. */
export function summarize(answer: unknown): unknown {
  if (answer === null || typeof answer !== "object") return answer ?? null;
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(answer as Record<string, unknown>)) {
    if (n++ >= 20) break;
    if (/secret|token|password|key/i.test(k)) continue;
    out[k] = v !== null && typeof v === "object" ? show(v, 200) : typeof v === "string" ? show(v, 200) : v;
  }
  return out;
}

export interface Auditing {
  /** Removes anything secret from a command line before it is stored or logged. */
  cleanLine(line: string): string;
  /** An audit row of `actor`'s `line`, before its outcome is known. */
  entry(actor: Actor, line: string, operation: string): AuditEntry;
  /** The client, with every write `actor`'s `line` makes recorded. */
  audited(actor: Actor, line: string): MessagingApi;
  /** Records a row (errors logged, never thrown), then tells the onAudit hook. */
  write(entry: AuditEntry): Promise<void>;
  /** write() of work done outside the API client: `actor`'s `line`, its operation and outcome, its answer summarized. */
  done(
    actor: Actor,
    line: string,
    e: { operation: string; ok: boolean; answer?: unknown; at?: Date },
  ): Promise<void>;
}

export function createAuditing(o: {
  api: MessagingApi;
  audit: AuditLog;
  /** The API key: kept out of every stored line. */
  apiKey?: string;
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
  log?: Logger;
}): Auditing {
  const { log } = o;

  const cleanLine = (line: string) => {
    let out = line.replace(SECRET_OPTION, (_m, k: string) => `${k}=[redacted]`);
    if (o.apiKey) out = out.split(o.apiKey).join("[redacted]");
    return out;
  };

  const entry = (actor: Actor, line: string, operation: string): AuditEntry => ({
    at: new Date(),
    actor: actor.userId,
    actorName: actor.userName,
    via: actor.via,
    channel: actor.channelId,
    command: cleanLine(line),
    operation,
    ok: false,
  });

  const audited = (actor: Actor, line: string): MessagingApi =>
    o.api.withHook(async (request, next) => {
      if (request.method === "GET") return next();
      const row = entry(actor, line, request.operation);
      try {
        const res = await next();
        Object.assign(row, { ok: true, status: res.status, answer: summarize(res.data) });
        return res;
      } catch (err) {
        Object.assign(row, {
          status: isApiError(err) ? err.status : undefined,
          answer: {
            error: isApiError(err) ? err.kind : "error",
            message: show(err instanceof Error ? err.message : String(err), 300),
          },
        });
        throw err;
      } finally {
        await write(row);
      }
    });

  const write = async (row: AuditEntry) => {
    try {
      await o.audit.record(row);
    } catch (err) {
      log?.error({ err: String(err), operation: row.operation }, "could not record an audit row");
    }
    if (o.onAudit) {
      try {
        await o.onAudit(row);
      } catch (err) {
        log?.warn({ err: String(err) }, "onAudit hook failed");
      }
    }
  };

  const done: Auditing["done"] = (actor, line, e) =>
    write({
      ...entry(actor, line, e.operation),
      ...(e.at ? { at: e.at } : {}),
      ok: e.ok,
      answer: e.answer === undefined ? undefined : summarize(e.answer),
    });

  return { cleanLine, entry, audited, write, done };
}
