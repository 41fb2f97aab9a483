// Message shortcut "Send to a customer": the message form, its text filled
// with the message's (Slack's markup made plain: entities, links).
import type { AllMiddlewareArgs, MessageShortcut, SlackShortcutMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { openForm } from "./open-form.ts";

/** The message form holds at most this many characters. */
const MAX_TEXT = 4096;

export function plainMessageText(text: string): string {
  return text
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<((?:https?|mailto):[^>]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .slice(0, MAX_TEXT);
}

export async function sendToCustomer({
  ack,
  shortcut,
  client,
  context,
}: SlackShortcutMiddlewareArgs & AllMiddlewareArgs<SlackContext>): Promise<void> {
  await ack();
  const message = (shortcut as MessageShortcut).message;
  const text = plainMessageText(typeof message?.text === "string" ? message.text : "");
  await openForm(context, { shortcut, client }, "send", "Send a message", text.trim() ? { text } : undefined);
}
