// A rating after Resolve (issue 29 §4): an inbox's rating template (an
// approved template with quick-reply buttons) is sent to the customer when a
// writer resolves the conversation; the answers it offers are kept with the
// thread, and the customer's answer matching one (src/inbox/follow.ts) is the
// conversation's rating. Without a template, nothing is sent.
import { placeholdersOf } from "../api/schemas/templates.ts";
import type { MessagingApi, Template } from "../api/types.ts";
import { customerRecord, templateValues } from "./customer-record.ts";
import type { InboxDeps } from "./inbox.ts";
import type { Actor } from "./types.ts";

const normal = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_");

/** The approved template of that name (compared as the service normalizes names), if any. */
export async function findTemplate(api: MessagingApi, name: string): Promise<Template | undefined> {
  const page = await api.listTemplates({ status: "approved" });
  return page.items.find((t) => normal(String(t.name ?? "")) === normal(name));
}

/** The texts of a template's quick-reply buttons: the answers a customer taps. */
export function quickReplies(t: Template): string[] {
  const buttons = Array.isArray(t.buttons) ? (t.buttons as Array<Record<string, unknown>>) : [];
  return buttons
    .filter((b) => String(b.type ?? "").toUpperCase() === "QUICK_REPLY" && typeof b.text === "string")
    .map((b) => String(b.text));
}

/**
 * On Resolve: the inbox's rating template sent to the customer, and the
 * answers it offers kept with the thread. What happened, in words, for the
 * resolver's answer; undefined when the inbox asks for no rating.
 */
export async function askRating(
  api: MessagingApi,
  inbox: InboxDeps,
  actor: Actor,
  p: { channel: string; chatUserId: number; channelId: number; now: Date },
): Promise<string | undefined> {
  const name = (await inbox.store.inbox(p.channel))?.ratingTemplate;
  if (!name) return undefined;
  const t = await findTemplate(api, name);
  const options = t ? quickReplies(t) : [];
  if (!t || !options.length)
    return `The rating template ${name} is no longer an approved template with quick-reply buttons: no rating was asked.`;
  const { values, missing } = templateValues(
    placeholdersOf(String(t.bodyText ?? "")),
    (await customerRecord(api, p.chatUserId)).record,
  );
  if (missing.length)
    return `No rating was asked: the rating template needs ${missing.map((m) => `{{${m}}}`).join(", ")}, which this customer's record does not have.`;
  const sent = await api.sendMessage({
    channelId: p.channelId,
    chatUserId: p.chatUserId,
    type: "template",
    template: {
      name: String(t.name),
      language: String(t.language ?? "en"),
      ...(Object.keys(values).length ? { parameters: values } : {}),
    },
  });
  if (typeof sent.id === "number")
    await inbox.ownSends.record(sent.id, actor.userId, "command").catch(() => {});
  await inbox.store.ratingAsked(p.channel, p.chatUserId, options, p.now);
  return `The customer was asked for a rating (${options.join(" / ")}).`;
}
