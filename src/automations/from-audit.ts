// Events read off the audit (issue 40 §3): every write and change a workspace
// makes is told to its audit listeners (src/workspaces/runtime.ts), and some
// of them are events: a conversation assigned or resolved, a campaign started
// (the API's send answered), an import finished. What the row's answer holds
// (ids, names) becomes the event's fields; never a key (the audit has none).
import type { AuditEntry } from "../store/audit.ts";
import type { EventType } from "./events.ts";

type Fields = Record<string, string | number | undefined>;

const objectOf = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;

/** Who did it, as Slack or the shell names them. */
const byOf = (e: AuditEntry) => (e.via === "shell" ? "shell" : e.actor);

/** The event an audited write is, with its fields; undefined for the rest (and for what failed). */
export function eventOfAudit(e: AuditEntry): { type: EventType; fields: Fields } | undefined {
  if (!e.ok) return undefined;
  const a = objectOf(e.answer);
  const conversation = {
    inbox_channel: str(a.channel),
    chat_user_id: str(a.chatUserId),
    customer_name: str(a.customer),
  };
  switch (e.operation) {
    case "inbox.assign":
      return {
        type: "conversation.assigned",
        fields: { ...conversation, assignee: str(a.assignee), assigned_by: byOf(e) },
      };
    case "inbox.resolve":
      return { type: "conversation.resolved", fields: { ...conversation, resolved_by: byOf(e) } };
    case "sendCampaign":
      return {
        type: "campaign.started",
        fields: {
          campaign_id: str(a.id),
          campaign_name: str(a.name) ?? str(objectOf(a.asked).name),
          started_by: byOf(e),
        },
      };
    case "importContacts": {
      const file = /import\s+(?:"([^"]+)"|(\S+\.(?:csv|xlsx)))/i.exec(e.command);
      const errors = a.errors;
      return {
        type: "import.finished",
        fields: {
          import_id: str(a.id),
          file_name: (file?.[1] ?? file?.[2] ?? "").split("/").pop(),
          imported: (Number(a.created) || 0) + (Number(a.updated) || 0),
          failed: Array.isArray(errors) ? errors.length : typeof errors === "number" ? errors : 0,
        },
      };
    }
    default:
      return undefined;
  }
}
