// Switchboard's events as automations send them (issue 40 §3,
// docs/automations.md): each event type's fields, a fixed set of flat strings,
// so that a Slack workflow's webhook trigger declares exactly those variables,
// and a plain endpoint gets the same fields under `data` in a JSON body with
// the envelope (`version`, `id`, `type`, `workspace`, `time`). Ids and names
// only: never a key, a token or a hook's URL.
import { randomUUID } from "node:crypto";

/** The envelope's version: a receiver checks it before reading `data`. */
export const EVENT_VERSION = 1;

const CONVERSATION = ["inbox_channel", "chat_user_id", "customer_name"] as const;

/** Each event type and its fields (all strings), in the order docs/automations.md lists them. */
export const EVENTS = {
  "message.received": [...CONVERSATION, "message_id", "message_text"],
  "conversation.assigned": [...CONVERSATION, "assignee", "assigned_by"],
  "conversation.resolved": [...CONVERSATION, "resolved_by"],
  "rating.received": [...CONVERSATION, "rating"],
  "reply_target.breached": [...CONVERSATION, "target"],
  "campaign.started": ["campaign_id", "campaign_name", "started_by"],
  "campaign.completed": ["campaign_id", "campaign_name"],
  "campaign.failed": ["campaign_id", "campaign_name", "reason"],
  "import.finished": ["import_id", "file_name", "imported", "failed"],
} as const satisfies Record<string, readonly string[]>;

export type EventType = keyof typeof EVENTS;
export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];

export const isEventType = (t: string): t is EventType => Object.hasOwn(EVENTS, t);

/** Conversation events: a hook may be limited to one inbox. */
export const isConversationEvent = (t: EventType) =>
  (EVENTS[t] as readonly string[]).includes("inbox_channel");

/** The variables a Workflow Builder trigger declares for an event: the envelope's, then the event's fields. */
export const workflowVariables = (t: EventType): string[] => [
  "event_id",
  "event_type",
  "workspace",
  "time",
  ...EVENTS[t],
];

export interface SwitchboardEvent {
  version: typeof EVENT_VERSION;
  /** Stable: every attempt and every hook of one event sends the same id (a receiver drops repeats by it). */
  id: string;
  type: EventType;
  workspace: string;
  time: string;
  /** The event's fields, every one present (an unknown value is an empty string). */
  data: Record<string, string>;
  /** Set on `automation test`'s event. */
  test?: true;
}

/** An event of `type` with its fields (missing ones empty, others dropped), a new id, now. */
export function makeEvent(
  type: EventType,
  workspace: string,
  fields: Partial<Record<string, string | number | undefined | null>>,
  now: Date,
  id: string = `evt_${randomUUID()}`,
): SwitchboardEvent {
  const data: Record<string, string> = {};
  for (const f of EVENTS[type]) {
    const v = fields[f];
    data[f] = v === undefined || v === null ? "" : String(v);
  }
  return { version: EVENT_VERSION, id, type, workspace, time: now.toISOString(), data };
}

/** What a Slack workflow's trigger gets: flat strings, exactly the declared variables. */
export function workflowBody(e: SwitchboardEvent): Record<string, string> {
  return { event_id: e.id, event_type: e.type, workspace: e.workspace, time: e.time, ...e.data };
}

/** A sample of each field, for `automation test`. */
export function testEvent(type: EventType, workspace: string, now: Date): SwitchboardEvent {
  const samples: Record<string, string> = {
    inbox_channel: "C0TEST",
    chat_user_id: "0",
    customer_name: "Test Customer",
    message_id: "0",
    message_text: "A test message from Switchboard",
    assignee: "U0TEST",
    assigned_by: "U0TEST",
    resolved_by: "U0TEST",
    rating: "5",
    target: "1h",
    campaign_id: "0",
    campaign_name: "Test campaign",
    started_by: "U0TEST",
    reason: "test",
    import_id: "0",
    file_name: "test.csv",
    imported: "0",
    failed: "0",
  };
  return { ...makeEvent(type, workspace, samples, now, `evt_test_${randomUUID()}`), test: true };
}
