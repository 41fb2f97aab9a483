// A change in the audit as a sentence about people and things, the same on
// the Home tab's recent changes and in the audit channel; every kind of write
// has its own (the inbox, its desk, channel names, saved replies too):
// "Alice imported messy.csv: 3 created, 2 failed", "Ana created tag *Sales*".

import { auditOutcome, operationWords } from "../../api/operations.ts";
import { esc } from "../../blocks/blocks.ts";
import type { AuditEntry } from "../../store/audit.ts";

/** `createContactField` → past tense and noun: what a change did, in words. */
const AUDIT_VERBS: Array<[RegExp, string]> = [
  [/^create/, "created"],
  [/^update/, "changed"],
  [/^delete/, "deleted"],
  [/^sendCampaign$/, "sent"],
  [/^sendMessage$/, "sent"],
  [/^cancel/, "cancelled"],
  [/^importContacts$/, "imported"],
  [/^addGroupContacts$/, "added contacts to"],
  [/^removeGroupContacts$/, "removed contacts from"],
  [/^optOut/, "opted out"],
  [/^optIn/, "opted in"],
  [/^sync/, "synchronized"],
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
  // The workspace's own changes (src/workspaces/admin.ts): no API operation, their own words.
  if (e.operation === "workspace.connect")
    return `${who} connected this workspace to *${esc(String(a.organization ?? "a messaging account"))}*`;
  if (e.operation === "workspace.disconnect")
    return `${who} disconnected this workspace${typeof a.organization === "string" ? ` from *${esc(a.organization)}*` : ""}`;
  if (e.operation === "workspace.settings")
    return `${who} changed the settings${Array.isArray(a.changed) && a.changed.length ? `: ${esc(a.changed.join(", "))}` : ""}`;
  // Held starts (docs/campaigns.md): set, cancelled, and what became of their run.
  if (e.operation.startsWith("campaign.hold")) return heldStartSentence(e, who, a);
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
  const own = ownWrite(e.operation, a, who);
  if (own) return e.ok ? own : `${own} (${auditOutcome(e)})`;
  const verb = AUDIT_VERBS.find(([re]) => re.test(e.operation))?.[1];
  if (!verb)
    return `${who}: ${esc(operationWords(e.operation).replace(/\s*\([^)]*\)/g, ""))}${e.ok ? "" : ` (${auditOutcome(e)})`}`;
  const base = e.operation.replace(
    /^(create|update|delete|send|cancel|import|add|remove|optOut|optIn|sync)/,
    "",
  );
  const noun = AUDIT_NOUNS[base] ?? base.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  const name = typeof a.name === "string" ? a.name : typeof a.label === "string" ? a.label : "";
  const id = /\b(\d+)\b/.exec(e.command.replace(/\(upload [^)]*\)/, ""))?.[1];
  if (e.operation === "importContacts") {
    const file = /import\s+(?:"([^"]+)"|(\S+\.(?:csv|xlsx)))/i.exec(e.command);
    const what = file ? esc((file[1] ?? file[2] ?? "").split("/").pop()) : "contacts";
    const counts = ["created", "updated", "errors"]
      .filter((k) => typeof a[k] === "number")
      .map((k) => `${a[k]} ${k === "errors" ? "failed" : k}`);
    return `${who} ${e.ok ? "imported" : "tried to import"} ${what}${counts.length ? `: ${counts.join(", ")}` : ""}${e.ok ? "" : ` (${auditOutcome(e)})`}`;
  }
  // A message's number is not in its command line (`send contact:1 …` names the contact).
  const thing = name
    ? `${noun} *${esc(name)}*`
    : e.operation === "sendMessage"
      ? "a message"
      : id
        ? `${noun} #${id}`
        : noun;
  return e.ok ? `${who} ${verb} ${thing}` : `${who} tried: ${verb} ${thing} (${auditOutcome(e)})`;
}

/** "Ana set *Spring sale* to start at …", "Ana cancelled the start of *Spring sale*". */
function heldStartSentence(e: AuditEntry, who: string, a: Record<string, unknown>): string {
  const name = `*${esc(String(a.name ?? "a campaign"))}*`;
  const at = typeof a.at === "string" ? Date.parse(a.at) : Number.NaN;
  const when = Number.isNaN(at)
    ? "later"
    : `<!date^${Math.floor(at / 1000)}^{date_short_pretty} {time}|${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC>`;
  const reason = typeof a.reason === "string" ? esc(a.reason) : "";
  switch (e.operation) {
    case "campaign.hold":
      return `${who} set ${name} to start at ${when}${a.reason === "quiet" ? " (after the quiet hours)" : ""}`;
    case "campaign.hold.cancel":
      return `${who} cancelled the start of ${name} at ${when}${a.now ? " and sent it now" : ""}`;
    case "campaign.hold.asked":
      return `The start of ${name} at ${when} was missed while Switchboard was stopped: held, and ${who} asked whether to start it now`;
    case "campaign.hold.refused":
      return `The start of ${name} at ${when} was held: ${reason}`;
    case "campaign.hold.skipped":
      return `The start of ${name} at ${when} was skipped: ${reason}`;
    default:
      return `The start of ${name} at ${when} failed: ${reason}`;
  }
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
function ownWrite(operation: string, a: Record<string, unknown>, who: string): string | undefined {
  switch (operation) {
    case "inbox.on":
      return `${who} turned the inbox on in ${channelOf(a)}`;
    case "inbox.filter":
      return `${who} changed what the inbox in ${channelOf(a)} shows`;
    case "inbox.off":
      return `${who} turned the inbox off in ${channelOf(a)}`;
    case "inbox.assign":
      return typeof a.assignee === "string" && a.assignee
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
      return undefined;
  }
}
