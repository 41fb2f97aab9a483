// Messages, conversation history and chat users.
import { normalizeTemplateName, placeholdersOf } from "../../api/schemas.ts";
import type { ChatUserRow, ContactRow, TemplateRow } from "../../store/sandbox/rows.ts";
import type { SandboxContext } from "../context.ts";
import { badRequest, found, notFound, unprocessable } from "../http.ts";
import { checkMediaUrl } from "../media-fetch.ts";
import type { Handlers } from "../serve.ts";
import * as shape from "../shapes.ts";

/** The conversation window of free-form messages, from the recipient's last inbound message. */
export const WINDOW_MS = 24 * 3_600_000;
/** How many of the latest messages a chat user carries when messages are included. */
export const INCLUDED_MESSAGES = 20;

/** Named or positional ("1", "2" …) parameters against the template's placeholders; returns the rendered body. */
function renderTemplate(t: TemplateRow, parameters: Record<string, string> = {}): string {
  const names = placeholdersOf(t.body_text);
  const keys = Object.keys(parameters);
  const positional = keys.length > 0 && keys.every((k) => /^\d+$/.test(k));
  const values = new Map<string, string>();
  const problems: string[] = [];
  for (const key of keys) {
    const name = positional ? names[Number(key) - 1] : key;
    if (name === undefined || !names.includes(name)) {
      problems.push(
        `template.parameters.${key} is not a placeholder of template ${t.name} (placeholders: ${names.join(", ") || "none"})`,
      );
    } else {
      values.set(name, parameters[key]!);
    }
  }
  for (const [i, name] of names.entries()) {
    if (!values.has(name))
      problems.push(`template.parameters.${positional ? i + 1 : name} is required by template ${t.name}`);
  }
  if (problems.length) throw badRequest(problems);
  return t.body_text.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_m, name: string) => values.get(name) ?? "");
}

/** Start of the chat-user date range: a bare date is that day at 00:00 UTC; dateTo includes its whole day. */
function rangeDate(value: string | undefined, end: boolean): Date | undefined {
  if (!value) return undefined;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const d = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  if (end) d.setTime(d.getTime() + (dateOnly ? 24 * 3_600_000 : 1));
  return d;
}

export const conversationHandlers = (ctx: SandboxContext) => {
  return {
    sendMessage: async ({ store, body }) => {
      const channel = await store.account.channel(body.channelId);
      if (!channel)
        throw badRequest([`channelId ${body.channelId} does not name a channel of the organization`]);

      let contact: ContactRow | undefined;
      let chatUser: ChatUserRow | undefined;
      let phone: string | undefined;
      let who: string;
      if (body.contactId !== undefined) {
        contact = await store.contacts.get(body.contactId);
        if (!contact) throw badRequest([`contactId ${body.contactId} does not name a contact`]);
        phone = contact.phone;
        chatUser = await store.chatUsers.byContact(contact.id, contact.phone);
        who = `contact ${contact.id}`;
      } else if (body.chatUserId !== undefined) {
        chatUser = await store.chatUsers.get(body.chatUserId);
        if (!chatUser) throw badRequest([`chatUserId ${body.chatUserId} does not name a chat user`]);
        phone = chatUser.phone ?? undefined;
        contact = chatUser.contact_id ? await store.contacts.get(chatUser.contact_id) : undefined;
        who = `chat user ${chatUser.id}`;
      } else {
        phone = body.to!;
        contact = await store.contacts.byPhone(phone);
        chatUser = await store.chatUsers.byPhone(phone);
        who = phone;
      }
      if (contact?.opted_out) {
        throw unprocessable(`${who} has opted out: messages to opted-out contacts are refused`);
      }

      let text = body.text;
      let template: Record<string, unknown> | undefined;
      // Text, image and document are session (free-form) messages on the channel; only templates open a conversation.
      if (body.type !== "template") {
        const last = chatUser?.last_inbound_at ? new Date(chatUser.last_inbound_at) : undefined;
        if (!last || ctx.now().getTime() - last.getTime() > WINDOW_MS) {
          throw unprocessable(
            `${who} is outside the 24-hour conversation window (${last ? `last wrote ${last.toISOString()}` : "never wrote"}): a free-form ${body.type} message cannot be sent, use a template message instead`,
          );
        }
      }
      if ((body.type === "image" || body.type === "document") && body.mediaUrl)
        await checkMediaUrl(body.type, body.mediaUrl);
      if (body.type === "template") {
        const requested = body.template!;
        await store.templates.review();
        const t = await store.templates.find(
          channel.id,
          normalizeTemplateName(requested.name),
          requested.language,
        );
        if (t?.status !== "approved") {
          throw badRequest([
            `template.name ${requested.name} (${requested.language}) is not an approved template of channel ${channel.id}${t ? `: it is ${t.status}` : ""}`,
          ]);
        }
        text = renderTemplate(t, requested.parameters);
        template = { id: t.id, name: t.name, language: t.language, parameters: requested.parameters ?? {} };
      }

      chatUser ??= await store.chatUsers.create({
        type: "phonechat",
        channelId: channel.id,
        contactId: contact?.id,
        name: contact
          ? [contact.first_name, contact.last_name].filter(Boolean).join(" ") || undefined
          : undefined,
        email: contact?.email ?? undefined,
        phone,
      });
      const conversation = await store.conversations.open(chatUser.id, channel.id);
      const row = await store.messages.recordOutbound({
        conversationId: conversation.id,
        chatUserId: chatUser.id,
        channelId: channel.id,
        type: body.type,
        text,
        template,
        mediaUrl: body.mediaUrl,
        metadata: body.metadata,
        assignToHuman: body.assignToHuman,
      });
      return shape.message(row);
    },

    getMessage: async ({ store, id }) => shape.message(found(await store.messages.get(id), "Message", id)),

    listConversationMessages: async ({ store, id, query: q }) => {
      if (!(await store.conversations.get(id))) throw notFound("Conversation", id);
      const r = await store.messages.inConversation(id, {
        ...q,
        before: q.before ? new Date(q.before) : undefined,
        after: q.after ? new Date(q.after) : undefined,
      });
      return shape.page(r.rows, r.total, q, shape.message);
    },

    listChatUsers: async ({ store, query: q }) => {
      const r = await store.chatUsers.list({
        ...q,
        dateFrom: rangeDate(q.dateFrom, false),
        dateTo: rangeDate(q.dateTo, true),
      });
      if (!q.includeMessages) return shape.page(r.rows, r.total, q, (u) => shape.chatUser(u));
      const messages = await store.messages.latestOf(
        r.rows.map((u) => u.id),
        INCLUDED_MESSAGES,
      );
      return shape.page(r.rows, r.total, q, (u) =>
        shape.chatUser(u, { messages: messages.filter((m) => m.chat_user_id === u.id) }),
      );
    },

    getChatUser: async ({ store, id }) => {
      const row = await store.chatUsers.get(id);
      if (!row) throw notFound("Chat user", id);
      return shape.chatUser(row, {
        conversations: await store.conversations.ofChatUsers([id]),
        messages: await store.messages.latestOf([id], INCLUDED_MESSAGES),
      });
    },

    updateChatUser: async ({ store, id, body }) => {
      if (body.customFields) {
        const keys = new Set((await store.fields.list()).map((f) => f.key));
        const unknown = Object.keys(body.customFields).filter((k) => !keys.has(k));
        if (unknown.length) {
          throw badRequest(
            unknown.map(
              (k) => `customFields.${k} is not a custom field key (keys: ${[...keys].join(", ") || "none"})`,
            ),
          );
        }
      }
      const row = await store.chatUsers.update(id, body.standardFields ?? {}, body.customFields);
      if (!row) throw notFound("Chat user", id);
      return shape.chatUser(row, { conversations: await store.conversations.ofChatUsers([id]) });
    },
  } satisfies Partial<Handlers>;
};
