import { z } from "zod";
import { isApiError } from "../../api/errors.ts";
import { isoDateTimeSchema, type SendMessageInput, sendMessageSchema } from "../../api/schemas.ts";
import type { ApiRecord } from "../../api/types.ts";
import { capitalize, context, esc, slackDate } from "../../blocks/blocks.ts";
import { idArg, limitArg, optionalId, pageArg, type Recipient, takeRecipient, yesNo } from "../args.ts";
import { formReply, type SendPrefill } from "../forms.ts";
import { channelFormData, recipientLabel } from "../lookups.ts";
import { type CommandContext, UserError } from "../registry.ts";
import { cardReply, listLine, pageReply, pick, show } from "../render.ts";
import { checkPlaceholderValues, fillPlaceholders } from "./campaign-message.ts";
import { checkBody } from "./check.ts";
import {
  announce,
  channelLabel,
  channelNamesOf,
  contactName,
  pageLine,
  refId,
  relatedNames,
  resolveChannel,
} from "./common.ts";
import { laterPreview, recipientRef, setLater } from "./scheduled.ts";
import { about, inTopic, onRecord, showing } from "./shapes.ts";

const command = inTopic("messages");

const SEND_NAMES = {
  to: "recipient",
  contactId: "recipient",
  chatUserId: "recipient",
  mediaUrl: "url",
  channelId: "channel",
  language: "lang",
  assignToHuman: "human",
};

const MESSAGE_STATUS_EMOJI: Record<string, string> = {
  queued: ":hourglass_flowing_sand:",
  sent: ":outbox_tray:",
  delivered: ":white_check_mark:",
  read: ":eyes:",
  received: ":inbox_tray:",
  failed: ":x:",
};

/** The recipient as the message form shows it once chosen: `Ana Lopez · +14155550200 (contact #1)`. */
async function sendPrefill(ctx: CommandContext, r: Recipient): Promise<SendPrefill> {
  if (r.kind === "phone") return { to: r.to };
  const id = r.kind === "contact" ? r.contactId : r.chatUserId;
  // A name is a nicety: when it cannot be read, the menu shows the id.
  const record = await (r.kind === "contact" ? ctx.api.getContact(id) : ctx.api.getChatUser(id)).catch(
    () => undefined,
  );
  return { recipient: { value: `${r.kind}:${id}`, label: recipientLabel(r.kind, id, record) } };
}

/**
 * A template message's values against its placeholders, before it is sent:
 * a placeholder left without a value would leave a gap in what the customer
 * reads. The template is found by name and language among the channel's; one
 * not found is left to the API to refuse in its words.
 */
async function checkTemplateValues(
  ctx: CommandContext,
  body: Partial<SendMessageInput>,
  channelId: number,
): Promise<ApiRecord | undefined> {
  const wanted = body.template as { name: string; language: string; parameters?: Record<string, string> };
  const page = await ctx.api.listTemplates({ channelId });
  const named = page.items.filter((t) => pick(t, "name") === wanted.name);
  const t = named.find((x) => pick(x, "language") === wanted.language) ?? named[0];
  if (!t) return undefined;
  checkPlaceholderValues(t, wanted.parameters ?? {}, ["channel", "human", "template", "lang"], true);
  return t;
}

/**
 * What a sent message is told as, by `/sb send` and the send form alike:
 * `✉️ Sent to *Lucía Romero*: “Hola Lucía…” · queued`, the person by name and
 * what they will read; the message's number and type in `detail`.
 */
export async function sentAnswer(
  api: Pick<CommandContext["api"], "getContact" | "getChatUser">,
  recipient: Recipient,
  body: Partial<SendMessageInput>,
  msg: ApiRecord,
  templateBody?: unknown,
): Promise<{ line: string; detail: string; text: string }> {
  const to =
    recipient.kind === "phone"
      ? recipient.to
      : await (recipient.kind === "contact"
          ? api.getContact(recipient.contactId).then((c) => contactName(c))
          : api.getChatUser(recipient.chatUserId).then((u) => show(pick(u, "name") ?? ""))
        ).catch(() => "");
  // What the person is, by name when known: "chat user Lucía Romero" (the id only when the name is not).
  const ref =
    recipient.kind === "contact"
      ? `contact #${recipient.contactId}`
      : recipient.kind === "user"
        ? to
          ? `chat user ${to}`
          : `chat user #${recipient.chatUserId}`
        : "";
  const who = to || ref;
  const said =
    body.type === "text"
      ? String(body.text ?? "")
      : body.type === "template"
        ? fillPlaceholders(
            String(templateBody ?? ""),
            (body.template as { parameters?: Record<string, string> }).parameters ?? {},
          ) || `template ${String((body.template as { name: string }).name)}`
        : `${body.type}${body.text ? `: ${body.text}` : ""}`;
  const status = pick(msg, "status");
  const line = `:envelope: Sent to *${esc(who)}*: “${esc(show(said, 120))}”${status ? ` · ${esc(show(status))}` : ""}`;
  const number = `Message #${show(msg.id ?? "?")}`;
  return {
    line,
    detail: `${number} · ${esc(String(body.type))}${to && ref ? ` · ${esc(ref)}` : ""}`,
    text: `${line} (${number})`,
  };
}

/** The arguments of `send` as the API's request (no channel yet), refused in words where they do not fit. */
function requestOf(a: SendArgs, recipient: Recipient, rest: string[]): Partial<SendMessageInput> {
  const body: Partial<SendMessageInput> = {};
  if (recipient.kind === "phone") body.to = recipient.to;
  else if (recipient.kind === "contact") body.contactId = recipient.contactId;
  else body.chatUserId = recipient.chatUserId;
  if (a.human !== undefined) body.assignToHuman = a.human;

  if (a.template !== undefined) {
    if (!a.lang)
      throw new UserError(
        "*lang* is required with template=: the template's language code, for example lang=en",
      );
    const parameters: Record<string, string> = {};
    for (const w of rest) {
      const eq = w.indexOf("=");
      if (eq <= 0)
        throw new UserError(
          `unexpected "${esc(w)}": template parameters are written name=value, like first_name=Ana`,
        );
      parameters[w.slice(0, eq)] = w.slice(eq + 1);
    }
    Object.assign(body, {
      type: "template",
      template: {
        name: a.template,
        language: a.lang,
        ...(Object.keys(parameters).length ? { parameters } : {}),
      },
    });
  } else {
    if (a.lang) throw new UserError("*lang* is only for template messages: add template=<name>");
    const kind = rest[0]?.toLowerCase();
    if (kind === "image" || kind === "document") {
      if (!rest[1]) throw new UserError(`*url* is required: send <recipient> ${kind} <url> [caption…]`);
      Object.assign(body, {
        type: kind,
        mediaUrl: rest[1],
        ...(rest.length > 2 ? { text: rest.slice(2).join(" ") } : {}),
      });
    } else {
      if (!rest.length) throw new UserError("*text* is required: what should the message say?");
      Object.assign(body, { type: "text", text: rest.join(" ") });
    }
  }
  return body;
}

const sendSchema = z.object({
  words: z.array(z.string()).default([]),
  channel: optionalId,
  human: yesNo.optional(),
  template: z.string().trim().min(1, { error: "must not be empty" }).optional(),
  lang: z.string().trim().min(1, { error: "must not be empty" }).optional(),
  at: z.string().trim().min(1, { error: "must not be empty" }).optional(),
});
type SendArgs = z.infer<typeof sendSchema>;

export const MESSAGE_COMMANDS = [
  command({
    words: ["send"],
    positionals: [{ name: "words", rest: "words" }],
    options: {
      channel: "channel id; default: the main channel",
      human: "yes: move the conversation to a human agent",
      template: "name of an approved template",
      lang: "the template's language code",
      at: 'send it later: 09:00 (the next 09:00), "2026-12-01 09:00" (the workspace\'s zone) or ISO 8601',
    },
    schema: sendSchema,
    access: "write",
    usage:
      "send <recipient> <text…> [at=<when>] | send <recipient> template=<name> lang=<code> [<param>=<value>…] | send <recipient> image|document <url> [caption…]",
    ...about(
      "Send a text, template, image or document message",
      "send +1 415 555 0123 template=order_update lang=en first_name=Ana order_id=A-1001",
    ),
    help: "The recipient is a phone number (spaces, dashes and brackets are fine), contact:<id> or user:<id>. A phone split by spaces takes the longest run of leading number-like words that makes a valid number, and the text starts after it: `send +34 612 345 678 hola` sends “hola” to +34612345678. Where a country's numbers vary in length (Germany, Austria…) and the text starts with a number, write the phone as one word: `send +4930123456 2 tickets`. A number that is not a phone is quoted in the answer with the reason (`+34 12` is too short for a phone number in Spain). Free text only reaches a contact inside the 24-hour window; use a template otherwise. In Slack, `send` alone opens the message form, and `send <recipient>` opens it with the recipient chosen. With `at=` (`at=09:00`, `at=\"2026-12-01 09:00\"` in the workspace's time zone, or ISO 8601) it asks to confirm and sends it then, once; `scheduled` lists those waiting. A free text message sent later needs the 24-hour window open at its time.",
    operations: ["sendMessage", "listTemplates"],
    // Sent later (`at=`): asked to confirm first, with what, to whom and when (defs/scheduled.ts).
    preview: async (a, ctx) => {
      if (a.at === undefined) return undefined;
      const taken = takeRecipient(a.words, ctx.defaultCountry);
      if ("error" in taken) throw new UserError(`*recipient* ${esc(taken.error)}`);
      const body = requestOf(a, taken.recipient, taken.rest);
      checkBody(
        sendMessageSchema,
        { ...body, channelId: a.channel ?? ctx.defaultChannelId ?? 1 },
        SEND_NAMES,
      );
      return laterPreview(ctx, taken.recipient, body, a.at);
    },
    run: async (a, ctx) => {
      const bare =
        !a.words.length && [a.channel, a.human, a.template, a.lang, a.at].every((v) => v === undefined);
      if (bare) {
        const load = () => channelFormData(ctx.api, ctx.defaultChannelId, channelNamesOf(ctx));
        return formReply(ctx, { kind: "send", load, instead: "send" }, "Opening the message form…");
      }
      const taken = takeRecipient(a.words, ctx.defaultCountry);
      if ("error" in taken) throw new UserError(`*recipient* ${esc(taken.error)}`);
      const { recipient, rest } = taken;
      // Only a recipient, in Slack (a card's "Send message"): the form, with them chosen.
      const onlyRecipient = !rest.length && [a.human, a.template, a.lang, a.at].every((v) => v === undefined);
      if (onlyRecipient && ctx.actor.via === "slack") {
        const load = async () => ({
          ...(await channelFormData(ctx.api, ctx.defaultChannelId, channelNamesOf(ctx))),
          prefill: await sendPrefill(ctx, recipient),
        });
        return formReply(ctx, { kind: "send", load, instead: "send" }, "Opening the message form…");
      }
      const body = requestOf(a, recipient, rest);
      // Every rule checked before the channel lookup, so bad input makes no request.
      checkBody(
        sendMessageSchema,
        { ...body, channelId: a.channel ?? ctx.defaultChannelId ?? 1 },
        SEND_NAMES,
      );
      const channelId = await resolveChannel(ctx, a.channel);
      const template = body.type === "template" ? await checkTemplateValues(ctx, body, channelId) : undefined;
      if (a.at !== undefined)
        return setLater(ctx, recipient, { ...(body as SendMessageInput), channelId }, a.at);
      // A contact or chat user read first: the audit names whom it went to, not "contact #12".
      if (recipient.kind === "contact") await ctx.api.getContact(recipient.contactId).catch(() => undefined);
      if (recipient.kind === "user") await ctx.api.getChatUser(recipient.chatUserId).catch(() => undefined);
      let msg: Awaited<ReturnType<typeof ctx.api.sendMessage>>;
      try {
        msg = await ctx.api.sendMessage({ ...(body as SendMessageInput), channelId });
        // Switchboard's own send: the inbox's thread shows who sent it (docs/inbox.md).
        if (typeof msg.id === "number")
          await ctx.inbox?.ownSends.record(msg.id, ctx.actor.userId, "command").catch(() => {});
      } catch (err) {
        // Outside the 24-hour window free text cannot reach them: say the rule, offer the templates.
        if (body.type !== "template" && isApiError(err) && /24.hour|conversation window/i.test(err.message)) {
          const who =
            recipient.kind === "phone"
              ? recipient.to
              : recipient.kind === "contact"
                ? "This contact"
                : "This chat user";
          throw new UserError(
            `${esc(who)} has not written in the last 24 hours, so free text cannot reach them: the messaging network allows it only within 24 hours of the person's last message. A template message (approved in advance) can start the conversation.`,
            false,
            [
              // The form, with this recipient chosen.
              { text: "Send a template…", line: `send ${recipientRef(recipient)}`, style: "primary" },
              { text: "Approved templates", line: "templates status=approved" },
            ],
          );
        }
        throw err;
      }
      const sent = await sentAnswer(ctx.api, recipient, body, msg, pick(template, "bodyText", "body"));
      const reply = announce(ctx, sent.line);
      reply.blocks.push(context(sent.detail));
      reply.text = sent.text;
      return reply;
    },
  }),
  command({
    ...showing("message", 3),
    summary: "Status of one message",
    operations: ["getMessage", "getChatUser"],
    run: async (a, ctx) => {
      const m = await ctx.api.getMessage(a.id);
      const userId = refId(m, "chatUserId", "chat_user_id");
      const channelId = refId(m, "channelId", "channel_id", "integrationId", "integration_id");
      const conversation = refId(m, "conversationId", "conversation_id");
      const names = await relatedNames({
        chatUserId: userId
          ? async () => show(pick(await ctx.api.getChatUser(userId), "name") ?? "")
          : undefined,
        channel: channelId ? () => channelLabel(ctx, channelId) : undefined,
      });
      const status = String(pick(m, "status") ?? "").toLowerCase();
      const direction = String(pick(m, "direction") ?? "").toLowerCase();
      const who = names.chatUserId ?? (userId ? `chat user ${userId}` : "");
      const title = who
        ? `${direction === "inbound" ? "Message from" : "Message to"} ${who}`
        : `Message ${a.id}`;
      const type = String(pick(m, "type") ?? "");
      const text = String(pick(m, "text", "caption") ?? "");
      const media = pick(m, "mediaUrl", "media_url");
      const at = pick(m, "createdAt", "created_at", "sentAt", "sent_at");
      const statusWord = capitalize(status);
      // One card: who, a status line, the message itself, where to go next.
      return cardReply({
        title: show(title, 140),
        pairs: [
          ...(statusWord
            ? ([["Status", `${MESSAGE_STATUS_EMOJI[status] ?? ""} ${esc(statusWord)}`.trim()]] as Array<
                [string, string]
              >)
            : []),
          ...(type ? ([["Type", esc(capitalize(type))]] as Array<[string, string]>) : []),
          ...(names.channel ? ([["Channel", esc(names.channel)]] as Array<[string, string]>) : []),
          ...(typeof media === "string"
            ? ([["Media", esc(show(media, 200))]] as Array<[string, string]>)
            : []),
        ],
        custom: text ? [`>${esc(show(text, 1500)).replace(/\n/g, "\n>")}`] : [],
        footer: `Message ${a.id}${direction ? ` · ${esc(direction)}` : ""}${typeof at === "string" ? ` · ${slackDate(at)}` : ""}`,
        buttons: [
          ...(conversation ? [{ text: "Conversation", line: `history ${conversation}` }] : []),
          ...(userId ? [{ text: "Chat user", line: `user ${userId}` }] : []),
        ],
      });
    },
  }),
  command({
    ...onRecord(["history"], "conversation", "read"),
    options: {
      before: "only messages before this ISO 8601 date-time",
      after: "only messages after it",
      page: "page number",
      limit: "messages per page, 1 to 100",
    },
    schema: z.object({
      id: idArg,
      before: isoDateTimeSchema.optional(),
      after: isoDateTimeSchema.optional(),
      page: pageArg,
      limit: limitArg,
    }),
    usage: "history <conversation-id> [before=] [after=] [page=] [limit=]",
    ...about("Messages of a conversation, newest first", "history 7 limit=10"),
    operations: ["listConversationMessages", "getChatUser"],
    run: async (a, ctx) => {
      const page = await ctx.api.listConversationMessages(a.id, {
        before: a.before,
        after: a.after,
        page: a.page,
        limit: a.limit,
      });
      // The person by name when a message names them (one read; a nicety: the number otherwise).
      const userId = page.items
        .map((m) => refId(m, "chatUserId", "chat_user_id"))
        .find((id) => id !== undefined);
      const who = userId
        ? await ctx.api.getChatUser(userId).then(
            (u) => show(pick(u, "name") ?? "", 80),
            () => "",
          )
        : "";
      return pageReply({
        title: who ? `Conversation with ${who}` : `Conversation #${a.id}`,
        one: "message",
        plural: "messages",
        page,
        pageLine: pageLine(ctx),
        // Who/when/status on one line, the message itself quoted under it, as a chat reads.
        line: (m) => {
          const type = pick(m, "type");
          const head = listLine(
            m.id,
            pick(m, "created_at", "createdAt", "timestamp"),
            pick(m, "direction", "sender", "from"),
            type === "text" ? "" : type,
            pick(m, "status"),
          );
          const body = show(pick(m, "text", "body", "content", "caption") ?? "", 500);
          return body ? `${head}\n>${esc(body).replace(/\n/g, "\n>")}` : head;
        },
      });
    },
  }),
];
