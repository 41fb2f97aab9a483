// A change in the audit as a sentence about people and things, the same on
// the Home tab's recent changes and in the audit channel; every kind of write
// has its own (the inbox, its desk, channel names, saved replies too):
// "Alice imported messy.csv: 3 created, 2 failed", "Ana created tag *Sales*".

import { parsePhoneNumberFromString } from "libphonenumber-js";
import { auditOutcome, operationWords } from "../../api/operations.ts";
import { esc } from "../../blocks/blocks.ts";
import type { AuditEntry } from "../../store/audit.ts";

/** `createContactField` → what a change did (past tense) and what it tried to do, in words. */
const AUDIT_VERBS: Array<[RegExp, string, string]> = [
  [/^create/, "created", "create"],
  [/^update/, "changed", "change"],
  [/^delete/, "deleted", "delete"],
  [/^sendCampaign$/, "sent", "send"],
  [/^sendMessage$/, "sent", "send"],
  [/^cancel/, "cancelled", "cancel"],
  [/^importContacts$/, "imported", "import"],
  [/^addGroupContacts$/, "added contacts to", "add contacts to"],
  [/^removeGroupContacts$/, "removed contacts from", "remove contacts from"],
  [/^optOut/, "opted out", "opt out"],
  [/^optIn/, "opted in", "opt in"],
  [/^sync/, "synchronized", "synchronize"],
];
const AUDIT_NOUNS: Record<string, string> = {
  ContactField: "field",
  ChatUser: "chat user",
  GroupContacts: "group",
  Templates: "templates",
};

/**
 * A change as a sentence about people and things: "Alice imported
 * messy.csv: 3 created, 2 failed", "Ana created tag *Sales*"; never an id
 * of an upload, an operation's name, nor "a change: done".
 */
export function auditSentence(e: AuditEntry): string {
  const who = e.via === "shell" ? "The shell" : `<@${e.actor}>`;
  const a = (e.answer && typeof e.answer === "object" ? e.answer : {}) as Record<string, unknown>;
  // The away message (issue 40 §1): Switchboard's own send, no person's.
  if (e.operation === "inbox.away.message") return awaySentence(a);
  // The workspace's own changes (src/workspaces/admin.ts): no API operation, their own words.
  if (e.operation === "workspace.connect")
    return `${who} connected this workspace to *${esc(String(a.organization ?? "a messaging account"))}*`;
  if (e.operation === "workspace.disconnect")
    return `${who} disconnected this workspace${typeof a.organization === "string" ? ` from *${esc(a.organization)}*` : ""}`;
  if (e.operation === "workspace.settings")
    return `${who} changed the settings${Array.isArray(a.changed) && a.changed.length ? `: ${esc(a.changed.join(", "))}` : ""}`;
  // Held starts (docs/campaigns.md): set, cancelled, and what became of their run.
  if (e.operation.startsWith("campaign.hold")) return heldStartSentence(e, who, a);
  // A message sent later (docs/automations.md): set, edited, cancelled, its outcome not known.
  if (e.operation.startsWith("message.later")) return laterSentence(e, who, a);
  // Approval before a send (issue 28 §3): "Luis approved *Spring sale* for 1,240 people".
  if (e.operation.startsWith("campaign.approval.")) {
    const name = `*${esc(String(a.name ?? "a campaign"))}*`;
    const n = typeof a.reach === "number" ? a.reach : undefined;
    const reach = n === undefined ? "" : ` for ${n.toLocaleString("en-US")} ${n === 1 ? "person" : "people"}`;
    if (e.operation === "campaign.approval.approve") return `${who} approved ${name}${reach}`;
    if (e.operation === "campaign.approval.reject")
      return `${who} rejected ${name}${typeof a.reason === "string" ? `: "${esc(a.reason)}"` : ""}`;
    return `${who} asked to approve ${name}${reach}`;
  }
  const own = ownWrite(e, a, who);
  if (own) return e.ok ? own : `${own} (${auditOutcome(e)})`;
  if (e.operation === "sendCampaign") return campaignSent(e, who, a);
  if (e.operation === "sendMessage") return messageSent(e, who, a);
  const verbs = AUDIT_VERBS.find(([re]) => re.test(e.operation));
  if (!verbs)
    return `${who}: ${esc(operationWords(e.operation).replace(/\s*\([^)]*\)/g, ""))}${e.ok ? "" : ` (${auditOutcome(e)})`}`;
  const [, verb, tryTo] = verbs;
  const base = e.operation.replace(
    /^(create|update|delete|send|cancel|import|add|remove|optOut|optIn|sync)/,
    "",
  );
  const noun = AUDIT_NOUNS[base] ?? base.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  const name = recordName(a);
  // The record's number as the command names it (`contact 12 delete`), never a phone's digits.
  const id = /^[a-z]+\s+#?(\d+)\b/i.exec(e.command)?.[1];
  if (e.operation === "importContacts") {
    const file = /import\s+(?:"([^"]+)"|(\S+\.(?:csv|xlsx)))/i.exec(e.command);
    const what = file ? esc((file[1] ?? file[2] ?? "").split("/").pop()) : "contacts";
    const counts = ["created", "updated", "errors"]
      .filter((k) => typeof a[k] === "number")
      .map((k) => `${a[k]} ${k === "errors" ? "failed" : k}`);
    return e.ok
      ? `${who} imported ${what}${counts.length ? `: ${counts.join(", ")}` : ""}`
      : `${who} tried to import ${what}${failure(e, a)}`;
  }
  const thing = name ? `${noun} *${esc(name)}*` : id ? `${noun} #${id}` : noun;
  // A group's members: how many, and the group by name ("added 2 contacts to group *VIP*").
  const members =
    typeof a.added === "number" ? a.added : typeof a.removed === "number" ? a.removed : undefined;
  if (base === "GroupContacts" && e.ok && members !== undefined)
    return `${who} ${verb.replace("contacts", `${members} ${members === 1 ? "contact" : "contacts"}`)} ${thing}`;
  return e.ok ? `${who} ${verb} ${thing}` : `${who} tried to ${tryTo} ${thing}${failure(e, a)}`;
}

/** A record's name as its answer (or the command's read before it, `asked`) shows it. */
function recordName(a: Record<string, unknown>): string {
  const asked = askedOf(a);
  // A contact's name: the API writes contacts in snake_case (docs/api.md), others in camelCase.
  const person = [a.first_name ?? a.firstName, a.last_name ?? a.lastName]
    .filter((x) => typeof x === "string" && x.trim())
    .join(" ");
  const name = typeof a.name === "string" ? a.name : typeof a.label === "string" ? a.label : person;
  const shown = name.trim() || asked.name || "";
  // A phone where a record has no name yet (a contact being created): written as people read it.
  const phone = /^\+\d{6,}$/.test(shown) ? parsePhoneNumberFromString(shown) : undefined;
  return phone?.isValid() ? phone.formatInternational() : shown;
}

/** What the write asked for, kept with its answer by the core's audit (src/commands/core/audit.ts). */
function askedOf(a: Record<string, unknown>): {
  name?: string;
  to?: string;
  toName?: string;
  campaign?: string;
} {
  const asked = a.asked && typeof a.asked === "object" ? (a.asked as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  return {
    name: text(asked.name),
    to: text(asked.to),
    toName: text(asked.toName),
    campaign: text(asked.campaign),
  };
}

/** Why a write did not happen, in words after its sentence: the API's own reason, or that no answer came. */
function failure(e: AuditEntry, a: Record<string, unknown>): string {
  if (!e.status) return ": no answer came from the messaging API, so it may or may not have happened";
  const said = typeof a.message === "string" ? a.message.trim().replace(/\s+/g, " ") : "";
  const why = said.length > 160 ? `${said.slice(0, 159)}…` : said;
  return why ? `: the messaging API refused it (${esc(why)})` : ": the messaging API refused it";
}

/** `+34600111222` → `+34 600 111 222`; as given when it is not a number libphonenumber reads. */
function phoneWords(phone: string): string {
  const parsed = parsePhoneNumberFromString(phone);
  return esc(parsed?.isValid() ? parsed.formatInternational() : phone);
}

/** A campaign by its name (its answer, else what the command read), else its number. */
function campaignOf(e: AuditEntry, a: Record<string, unknown>, name = recordName(a)): string {
  if (name) return `*${esc(name)}*`;
  const id = /^campaign\s+(\d+)\b/.exec(e.command)?.[1];
  return id ? `campaign #${id}` : "a campaign";
}

/**
 * A campaign's start: "@ana started *Spring sale*", "… from the approval message", "*Spring sale* started
 * at the time @ana set" (a held start); not started: who tried, and why.
 */
function campaignSent(e: AuditEntry, who: string, a: Record<string, unknown>): string {
  const name = campaignOf(e, a);
  const held = /\(held start\)/.test(e.command);
  if (!e.ok)
    return held
      ? `The start of ${name} that ${who} set did not go out${failure(e, a)}`
      : `${who} tried to start ${name}${e.how === "approval" ? " from the approval message" : ""}${failure(e, a)}`;
  if (held) return `${name} started at the time ${who} set`;
  return `${who} started ${name}${e.how === "approval" ? " from the approval message" : ""}`;
}

/**
 * A message, and to whom: "@ana sent a message to *Lucía Romero*", a campaign's test "@ana sent a test of
 * *Spring sale* to +34 600 111 222"; not sent: to whom, and why.
 */
function messageSent(e: AuditEntry, who: string, a: Record<string, unknown>): string {
  const asked = askedOf(a);
  const later = LATER_LINE.exec(e.command);
  const test = /^campaign\s+\d+\s+test\b/.test(e.command) || asked.campaign !== undefined;
  const typedPhone = /(\+\d[\d\s().-]{5,}\d)/.exec(e.command)?.[1]?.replace(/[\s().-]/g, "");
  const phone = asked.to ?? typedPhone;
  const formName = /\bto "([^"]+)"$/.exec(e.command)?.[1];
  const record = /\b(contact|user):(\d+)\b/.exec(e.command);
  const whom = asked.toName
    ? `*${esc(asked.toName)}*`
    : formName
      ? `*${esc(formName)}*`
      : phone
        ? phoneWords(phone)
        : record
          ? `${record[1] === "user" ? "chat user" : "contact"} #${record[2]}`
          : typeof a.chatUserId === "number"
            ? `chat user #${a.chatUserId}`
            : "";
  const to = whom ? ` to ${whom}` : "";
  if (test) {
    const name = campaignOf(e, a, asked.campaign ?? "");
    return e.ok
      ? `${who} sent a test of ${name}${to}`
      : `${who} tried to send a test of ${name}${to}${failure(e, a)}`;
  }
  if (later) {
    const set = ` (set at ${timeToken(later[1]!, "{time}")})`;
    return e.ok
      ? `${possessive(who)} message${to} was sent${set}`
      : `${possessive(who)} message${to} was not sent${set}${failure(e, a)}`;
  }
  return e.ok ? `${who} sent a message${to}` : `${who} tried to send a message${to}${failure(e, a)}`;
}

/** The line a message sent later is audited as (commands/later-sends.ts: laterLine). */
const LATER_LINE = /\(later #\d+, set at (\S+)\)$/;

const possessive = (who: string) => (who === "The shell" ? "The shell's" : `${who}'s`);

/** A Slack date token of an ISO time, its fallback in UTC; "later" when it is not a time. */
function timeToken(iso: string, format = "{date_short_pretty} {time}"): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "later";
  return `<!date^${Math.floor(at / 1000)}^${format}|${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC>`;
}

/** "@ana set a message to *Lucía Romero* for …", edited, cancelled; "whether … was sent is not known". */
function laterSentence(e: AuditEntry, who: string, a: Record<string, unknown>): string {
  const to = typeof a.to === "string" ? ` to *${esc(a.to)}*` : "";
  const when = typeof a.at === "string" ? timeToken(a.at) : "later";
  switch (e.operation) {
    case "message.later":
      return `${who} set a message${to} to be sent at ${when}`;
    case "message.later.edit":
      return `${who} changed the message${to} to be sent at ${when}`;
    case "message.later.cancel":
      return `${who} cancelled the message${to} that was to be sent later`;
    default:
      return `Whether ${possessive(who)} message${to} was sent at ${when} is not known: Switchboard stopped while sending it`;
  }
}

/** "Ana set *Spring sale* to start at …", "Ana cancelled the start of *Spring sale*". */
function heldStartSentence(e: AuditEntry, who: string, a: Record<string, unknown>): string {
  const name = `*${esc(String(a.name ?? "a campaign"))}*`;
  const when = typeof a.at === "string" ? timeToken(a.at) : "later";
  const reason = typeof a.reason === "string" ? esc(a.reason) : "";
  switch (e.operation) {
    case "campaign.hold":
      return `${who} set ${name} to start at ${when}${a.reason === "quiet" ? " (after the quiet hours)" : ""}`;
    case "campaign.hold.cancel":
      return `${who} cancelled the start of ${name} at ${when}${a.now ? " and sent it now" : ""}`;
    case "campaign.hold.asked":
      return `The start of ${name} that ${who} set for ${when} was missed while Switchboard was stopped: held, and ${who} asked whether to start it now`;
    case "campaign.hold.refused":
      return `The start of ${name} that ${who} set for ${when} was held: ${reason}`;
    case "campaign.hold.skipped":
      return `The start of ${name} that ${who} set for ${when} was skipped: ${reason}`;
    default:
      return `The start of ${name} that ${who} set for ${when} failed: ${reason}`;
  }
}

/** "Switchboard sent the away message to *Ana* in #support"; refused, or its outcome not known. */
function awaySentence(a: Record<string, unknown>): string {
  const to = `${customerOf(a)} in ${channelOf(a)}`;
  if (a.outcome === "sent") return `Switchboard sent the away message to ${to}`;
  if (a.outcome === "refused") return `Switchboard's away message to ${to} was refused by the messaging API`;
  return `Whether Switchboard's away message reached ${to} is not known: the messaging API did not answer; it is not sent again`;
}

/** `C0123` → `<#C0123>`: Slack shows the channel's name. */
const channelOf = (a: Record<string, unknown>) =>
  typeof a.channel === "string" && /^[CG][A-Z0-9]+$/.test(a.channel) ? `<#${a.channel}>` : "a channel";
/** The customer of an inbox conversation by name, as the card shows them. */
const customerOf = (a: Record<string, unknown>) =>
  typeof a.customer === "string" && a.customer.trim()
    ? `*${esc(a.customer.trim())}*`
    : typeof a.chatUserId === "number"
      ? `chat user ${a.chatUserId}`
      : "a customer";
const quoted = (v: unknown) => (typeof v === "string" && v.trim() ? `*${esc(v.trim())}*` : "");

/**
 * Switchboard's own writes (no API operation): the inbox, its desk, the
 * channels' names, saved replies, each as a sentence; undefined for others.
 */
/** An automation's change (docs/automations.md): its number, event and address as masked when kept. */
function automationSentence(e: AuditEntry, a: Record<string, unknown>, who: string): string {
  const n = typeof a.number === "number" ? ` ${a.number}` : "";
  const what =
    typeof a.event === "string"
      ? ` (\`${esc(a.event)}\`${typeof a.url === "string" ? ` to ${esc(a.url)}` : ""})`
      : "";
  const it = `automation${n}${what}`;
  switch (e.operation) {
    case "automation.add":
      return `${who} added ${it}`;
    case "automation.delete":
      return `${who} deleted ${it}`;
    case "automation.rotate":
      return `${who} gave ${it} a new signing secret`;
    case "automation.retry":
      return `${who} sent the failed events of ${it} again`;
    case "automation.test":
      return `${who} ${e.ok ? "sent" : "tried to send"} a test event to ${it}`;
    default:
      return `${who} changed ${it}`;
  }
}

function ownWrite(e: AuditEntry, a: Record<string, unknown>, who: string): string | undefined {
  switch (e.operation) {
    case "inbox.on":
      return `${who} turned the inbox on in ${channelOf(a)}`;
    case "inbox.filter":
      return `${who} changed what the inbox in ${channelOf(a)} shows`;
    case "inbox.off":
      return `${who} turned the inbox off in ${channelOf(a)}`;
    case "inbox.away":
      return `${who} turned the away message ${a.on ? "on" : "off"} in the inbox in ${channelOf(a)}`;
    case "inbox.assign":
      // Given to oneself is taken.
      return typeof a.assignee === "string" && a.assignee && a.assignee !== e.actor
        ? `${who} gave the conversation with ${customerOf(a)} to <@${a.assignee}>`
        : `${who} took the conversation with ${customerOf(a)}`;
    case "inbox.unassign":
      return `${who} let go of the conversation with ${customerOf(a)}`;
    case "inbox.resolve":
      return `${who} resolved the conversation with ${customerOf(a)}`;
    case "inbox.reopen":
      return `${who} reopened the conversation with ${customerOf(a)}`;
    case "inbox.snooze": {
      const at = typeof a.until === "string" ? Date.parse(a.until) : Number.NaN;
      const until = Number.isNaN(at)
        ? "the customer writes"
        : `<!date^${Math.floor(at / 1000)}^{date_short_pretty} {time}|${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC>`;
      return `${who} snoozed the conversation with ${customerOf(a)} until ${until}`;
    }
    case "inbox.wake":
      return `${who} brought back the conversation with ${customerOf(a)} from its snooze`;
    case "nameChannel": {
      const id = typeof a.id === "number" ? a.id : undefined;
      const before = quoted(a.before);
      const now = quoted(a.name) || "again";
      return before && before !== now
        ? `${who} renamed the messaging channel ${before} to ${now}`
        : `${who} named messaging channel ${id ?? ""} ${now}`.replace(/\s+/g, " ");
    }
    case "reply.add":
      return `${who} saved the reply ${quoted(a.name)}`.trim();
    case "reply.edit":
      return `${who} changed the saved reply ${quoted(a.name)}`.trim();
    case "reply.delete":
      return `${who} deleted the saved reply ${quoted(a.name)}`.trim();
    default:
      return e.operation.startsWith("automation.") ? automationSentence(e, a, who) : undefined;
  }
}
