// The audit of every write: a hook on the client's transport around each
// request that is not a GET, one row per write that reached the API (and the
// onAudit hook: the Slack side posts it to AUDIT_CHANNEL). Input the client
// refuses before any request never reaches the hook, so it is not audited.
import { isApiError } from "../../api/errors.ts";
import type { MessagingApi, RequestInfo } from "../../api/types.ts";
import { maskHookLine } from "../../automations/index.ts";
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

/** A record read while a command ran: its name and phone, as the API showed them. */
interface Known {
  name?: string;
  phone?: string;
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** A record's name (a campaign's, a contact's first and last, a chat user's) and phone, when it is one. */
function knownOf(data: unknown): Known | undefined {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const r = data as Record<string, unknown>;
  const name =
    text(r.name) ??
    text(
      [r.first_name ?? r.firstName, r.last_name ?? r.lastName].filter((x) => typeof x === "string").join(" "),
    );
  const phone = text(r.phone) ?? text(r.phoneNumber);
  return name || phone ? { ...(name ? { name } : {}), ...(phone ? { phone } : {}) } : undefined;
}

/**
 * What a write asked for, in the audit's words (`asked` in the row's answer): the record it names by what
 * the command read before it (its name), a message's phone and whom that phone is, a test's campaign.
 */
export interface Asked {
  /** The record at the write's own path (`/contacts/12`), as read before. */
  name?: string;
  /** A message's phone, as sent. */
  to?: string;
  /** Whom that phone is (a contact or chat user the command read). */
  toName?: string;
  /** The campaign a message tests (its metadata), by name. */
  campaign?: string;
}

const objectOf = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function askedOf(request: RequestInfo, read: Map<string, Known>): Asked | undefined {
  const out: Asked = {};
  const body = objectOf(request.body);
  // The record written: as read before (`/contacts/12`), else as the body names it (a record being created).
  const own = read.get(request.path.replace(/\/(send|cancel|contacts|opt-(in|out))$/, "")) ?? knownOf(body);
  if (own?.name) out.name = own.name;
  else if (own?.phone && !text(body.to)) out.name = own.phone;
  const to = text(body.to);
  const record =
    body.contactId !== undefined
      ? `/contacts/${body.contactId}`
      : body.chatUserId !== undefined
        ? `/chat-users/${body.chatUserId}`
        : undefined;
  const named = record ? read.get(record)?.name : undefined;
  if (named) out.toName = named;
  if (to) {
    out.to = to;
    const whom = [...read.values()].reverse().find((k) => k.phone === to && k.name)?.name;
    if (whom) out.toName ??= whom;
  }
  const meta = objectOf(body.metadata);
  if (typeof meta.campaignId === "number") {
    const campaign = read.get(`/campaigns/${meta.campaignId}`)?.name;
    if (campaign) out.campaign = campaign;
  }
  return Object.keys(out).length ? out : undefined;
}

const withAsked = (answer: unknown, asked: Asked | undefined): unknown =>
  !asked ? answer : answer !== null && typeof answer === "object" ? { ...answer, asked } : { asked };

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
    // A hook's URL is as good as a password: masked in the typed line too.
    let out = maskHookLine(line).replace(SECRET_OPTION, (_m, k: string) => `${k}=[redacted]`);
    if (o.apiKey) out = out.split(o.apiKey).join("[redacted]");
    return out;
  };

  const entry = (actor: Actor, line: string, operation: string): AuditEntry => ({
    at: new Date(),
    actor: actor.userId,
    actorName: actor.userName,
    via: actor.via,
    // The shell takes only typed lines (its y/N answers a line typed before).
    ...(actor.how ? { how: actor.how } : actor.via === "shell" ? { how: "typed" as const } : {}),
    channel: actor.channelId,
    command: cleanLine(line),
    operation,
    ok: false,
  });

  const audited = (actor: Actor, line: string): MessagingApi => {
    // The records this command read, by path: their names tell whom a write was for, with no read of its own.
    const read = new Map<string, Known>();
    return o.api.withHook(async (request, next) => {
      if (request.method === "GET") {
        const res = await next();
        const known = knownOf(res.data);
        if (known) read.set(request.path, known);
        return res;
      }
      const row = entry(actor, line, request.operation);
      const asked = askedOf(request, read);
      try {
        const res = await next();
        const answer = summarize(res.data);
        Object.assign(row, { ok: true, status: res.status, answer: withAsked(answer, asked) });
        return res;
      } catch (err) {
        Object.assign(row, {
          status: isApiError(err) ? err.status : undefined,
          answer: withAsked(
            {
              error: isApiError(err) ? err.kind : "error",
              message: show(err instanceof Error ? err.message : String(err), 300),
            },
            asked,
          ),
        });
        throw err;
      } finally {
        await write(row);
      }
    });
  };

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
