// Plain-words answers for everything that can go wrong: bad input (named
// field, right usage) and each typed API error. No stack trace, no key.
import {
  AuthenticationError,
  BudgetError,
  ConflictError,
  isApiError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "../api/errors.ts";
import { OPERATION, type OperationName } from "../api/operations.ts";
import type { FieldProblem } from "../api/schemas.ts";
import { context, esc, section } from "../blocks/blocks.ts";
import type { AnySpec } from "./registry.ts";
import type { Reply } from "./types.ts";

/**
 * A command whose usage has several forms: the example of each, and what in
 * the typed line picks it (the first that matches; the last is the default).
 */
const FORMS_OF: Record<string, Array<{ when: RegExp; example: string }>> = {
  send: [
    {
      when: /\btemplate=/i,
      example: "send +1 415 555 0123 template=order_update lang=en first_name=Ana order_id=A-1001",
    },
    {
      when: /\s(?:image|document)\s/i,
      example: "send +1 415 555 0123 image https://example.com/menu.png Our new menu",
    },
    { when: /./, example: "send +1 415 555 0123 Your order is on its way" },
  ],
  // `connect` alone opens a form in Slack: in the shell, the line that does it.
  connect: [{ when: /./, example: "connect key=sb_live_0123abcd" }],
};

/**
 * The one usage that fits what was typed, as a line ready to adapt: an
 * example, never the grammar of every form (no `|`, no `<…>`), and where the
 * rest is explained.
 */
export function usageLines(spec: AnySpec, typed = ""): string {
  const example = FORMS_OF[spec.id]?.find((f) => f.when.test(` ${typed} `))?.example ?? spec.example;
  const words = spec.words.filter((w) => !w.startsWith("<")).join(" ");
  return `For example: \`/sb ${esc(example)}\` (\`/sb help ${esc(words)}\` tells every option).`;
}

export function errorReply(message: string, detail?: string): Reply {
  const blocks = [section(`:warning: ${message}`)];
  if (detail) blocks.push(context(detail) as never);
  return { visibility: "ephemeral", text: `${message}${detail ? `\n${detail}` : ""}`, blocks };
}

/** A bad command line: every problem with its field, and the usage. */
export function inputErrorReply(spec: AnySpec, problems: FieldProblem[], typed = ""): Reply {
  const lines = problems.map((p) => problemLine(p));
  return errorReply(
    `\`/sb ${esc(spec.words.join(" "))}\`: ${lines.length > 1 ? "\n" : ""}${lines.join("\n")}`,
    usageLines(spec, typed),
  );
}

/** API field names mapped back to the option names a person types. */
const API_FIELD_NAMES: Record<string, string> = {
  first_name: "first",
  last_name: "last",
  integrationId: "channel",
  channelId: "channel",
  templateId: "template",
  conversationTagId: "tag",
  groupIds: "group",
  contactIds: "contacts",
  bodyText: "body",
  footerText: "footer",
  language: "lang",
  assignToHuman: "human",
  mediaUrl: "url",
  dateFrom: "from",
  dateTo: "to",
  sortBy: "sort",
  sortOrder: "order",
  needHuman: "need-human",
  hasUnreadMessages: "unread",
  includeMessages: "messages",
  optedOut: "opted-out",
};

/**
 * The API's rules in a person's words: member names (`groupIds`) become the
 * option names they type, and a rule about the whole request has no field.
 */
const RULE_WORDS: Array<[RegExp, string]> = [
  [/^give at least one member to change$/, "give at least one value to change"],
  [/\s*\((groupIds|contactIds)\)/g, ""],
];
const friendlyRule = (rule: string) => RULE_WORDS.reduce((r, [re, words]) => r.replace(re, words), rule);

/**
 * The API's sentences about a record or a placeholder, as a person would say
 * them: "There is no contact #999", "Template order_update needs `first_name=…`".
 */
function personalProblem(p: FieldProblem): string | undefined {
  const missing = /^(\S+) does not name an? (chat user|[a-z]+)\b/.exec(p.rule);
  if (missing) return `There is no ${missing[2]} #${esc(missing[1]!)}`;
  const param = /^(?:template\.parameters|templateParameters)\.(.+)$/.exec(p.field)?.[1];
  if (param === undefined) return undefined;
  const template = /^is required by template (\S+)/.exec(p.rule)?.[1];
  if (template) return `Template ${esc(template)} needs \`${esc(param)}=…\``;
  if (/^is required\b/.test(p.rule)) return `The template needs \`${esc(param)}=…\``;
  const other = /^is not a placeholder of template (\S+)(?: \(placeholders: ([^)]*)\))?/.exec(p.rule);
  if (other) {
    return `Template ${esc(other[1]!)} has no placeholder \`${esc(param)}\`${other[2] ? `; its placeholders: ${esc(other[2])}` : ""}`;
  }
  return undefined;
}

/** `• *field* rule`, in the words of the command line; `names` renames a command's own members. */
export function problemLine(p: FieldProblem, names: Record<string, string> = {}): string {
  const personal = personalProblem(p);
  if (personal) return `• ${personal}`;
  const rule = esc(friendlyRule(p.rule));
  return p.field === "(body)" || p.field === ""
    ? `• ${rule}`
    : `• *${esc(friendlyField(p.field, names))}* ${rule}`;
}

/** Only the top member is renamed: nested keys (template parameters, custom fields) are the user's own. */
const friendlyField = (field: string, names: Record<string, string> = {}) => {
  // A custom field or a placeholder is named as typed (`points=`), without the API's member around it.
  const own = /^(?:custom_fields|customFields|template\.parameters|templateParameters)\.(.+)$/.exec(
    field,
  )?.[1];
  if (own !== undefined) return own;
  const [top, ...rest] = field.split(".");
  return [names[top!] ?? API_FIELD_NAMES[top!] ?? top, ...rest].filter(Boolean).join(".");
};

/** Whether the failed operation changes data (unknown operations count as changes: the careful side). */
const isWrite = (operation: string | undefined) =>
  !operation ||
  (OPERATION as Record<string, { method: string } | undefined>)[operation as OperationName]?.method !== "GET";

/** No answer in time: after the one deadline of a person's command, or an attempt's own timeout. */
function noAnswerInTime(e: NetworkError): Reply {
  const when =
    e instanceof TimeoutError
      ? `within ${Math.max(1, Math.round(e.deadlineMs / 1000))} s (${e.attempts} attempt${e.attempts === 1 ? "" : "s"})`
      : "in time";
  const first = `The messaging API did not answer ${when}.`;
  if (!isWrite(e.operation)) return errorReply(`${first} Nothing was changed; try again in a minute.`);
  return errorReply(
    e.mayHaveReachedServer
      ? `${first} The change may have gone through all the same: check the result (for example with a list command) before trying again.`
      : `${first} The change was not sent; try again in a minute.`,
  );
}

export interface ErrorContext {
  spec?: AnySpec;
  /** The record the command named, for "no such tag #12". */
  id?: unknown;
}

/** An API error (or anything thrown) as an answer a person can act on. */
export function apiErrorReply(err: unknown, ctx: ErrorContext = {}): Reply {
  const usage = ctx.spec ? usageLines(ctx.spec) : undefined;
  if (!isApiError(err)) {
    return errorReply(
      "Something went wrong inside Switchboard; the error is logged. Try again, and tell the operator if it persists.",
    );
  }
  const e = err;
  if (e instanceof ValidationError) {
    const lines = e.problems.map((p) => problemLine(p));
    return errorReply(`The messaging API refused the input:\n${lines.join("\n") || esc(e.message)}`, usage);
  }
  if (e instanceof AuthenticationError) {
    return errorReply(
      "The messaging API does not accept the API key. Ask whoever runs Switchboard to check the key in its settings.",
    );
  }
  if (e instanceof PermissionError) {
    return errorReply(
      "The API key may not do this: changes need a key with the write scope. Ask the operator for one.",
    );
  }
  if (e instanceof NotFoundError) {
    const noun = ctx.spec?.noun ?? "record";
    const id = ctx.id !== undefined ? ` #${esc(String(ctx.id))}` : "";
    // With the id named, the API's own "Contact 999 was not found" only repeats it.
    return errorReply(
      `No such ${noun}${id} (or it was deleted).`,
      e.message && !id ? `The API said: ${esc(e.message)}` : undefined,
    );
  }
  if (e instanceof ConflictError) {
    return errorReply(`The messaging API refused: ${esc((e as Error).message)}`);
  }
  if (e instanceof RateLimitError) {
    const s = Math.max(1, Math.ceil(e.retryAfterMs / 1000));
    return errorReply(
      `The messaging API's rate limit is reached; this request could not be queued within its time. Try again in about ${s} s.`,
    );
  }
  if (e instanceof BudgetError) {
    // Switchboard's own pacing of the key held it back: the API was never asked.
    const s = Math.max(1, Math.ceil(e.retryAfterMs / 1000));
    return errorReply(
      `Not sent: this key's budget of ${e.perMinute} ${e.budget}s a minute is used; try again in ${s} s.`,
    );
  }
  if (e instanceof ServerError) {
    return errorReply(
      "The messaging API failed on its side. Nothing suggests your input was wrong: try again in a minute.",
    );
  }
  if (e instanceof NetworkError && e.timedOut) return noAnswerInTime(e);
  if (e instanceof NetworkError) {
    return errorReply(
      e.mayHaveReachedServer && isWrite(e.operation)
        ? "No answer from the messaging API. The request may have reached it: check the result (for example with a list command) before trying again."
        : "Could not reach the messaging API. Try again in a minute.",
    );
  }
  return errorReply(`The messaging API refused: ${esc((e as Error).message)}`);
}
