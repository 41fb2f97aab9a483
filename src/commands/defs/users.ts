import { z } from "zod";
import {
  CHAT_USER_SORT_FIELDS,
  CHAT_USER_TYPES,
  isoDateOrDateTimeSchema,
  updateChatUserSchema,
} from "../../api/schemas.ts";
import { count, slackDate } from "../../blocks/blocks.ts";
import { chatTypeLabel } from "../../domain/chat-types.ts";
import { choice, idArg, limitArg, optionalTexts, pageArg } from "../args.ts";
import { changeLine, memberWords } from "../changes.ts";
import { recordFormReply } from "../forms.ts";
import { cardReply, customFieldLines, listLine, pageReply, pick, recordPairs, show } from "../render.ts";
import { checkBody } from "./check.ts";
import { cardAfterWrite, channelLabel, contactName, pageLine, refId, relatedNames } from "./common.ts";
import { about, inTopic, onRecord, showing } from "./shapes.ts";

const command = inTopic("users");

export const USER_COMMANDS = [
  command({
    id: "users.list",
    words: ["users"],
    positionals: [{ name: "search", rest: "text" }],
    options: {
      type: `channel type: ${CHAT_USER_TYPES.join(", ")}`,
      sort: `sort by ${CHAT_USER_SORT_FIELDS.join(", ")}`,
      order: "asc or desc",
      from: "start of the date range, ISO 8601",
      to: "end of the date range, ISO 8601",
      page: "page number",
      limit: "users per page, 1 to 100",
    },
    flags: {
      "need-human": "only users that need a human",
      unread: "only users with unread messages",
      messages: "include their messages",
    },
    schema: z.object({
      search: z.string().optional(),
      type: choice(CHAT_USER_TYPES).optional(),
      sort: choice(CHAT_USER_SORT_FIELDS).optional(),
      order: choice(["ASC", "DESC"] as const, (v) => v.toUpperCase()).optional(),
      from: isoDateOrDateTimeSchema.optional(),
      to: isoDateOrDateTimeSchema.optional(),
      "need-human": z.boolean().optional(),
      unread: z.boolean().optional(),
      messages: z.boolean().optional(),
      page: pageArg,
      limit: limitArg,
    }),
    access: "read",
    usage:
      "users [search…] [type=] [need-human] [unread] [sort=] [order=asc|desc] [from=] [to=] [messages] [page=] [limit=]",
    ...about("List chat users", "users need-human unread sort=last_activity order=desc"),
    operations: ["listChatUsers"],
    run: async (a, ctx) => {
      const page = await ctx.api.listChatUsers({
        search: a.search,
        type: a.type,
        sortBy: a.sort,
        sortOrder: a.order,
        dateFrom: a.from,
        dateTo: a.to,
        needHuman: a["need-human"],
        hasUnreadMessages: a.unread,
        includeMessages: a.messages,
        page: a.page,
        limit: a.limit,
      });
      return pageReply({
        title: "Chat users",
        one: "chat user",
        plural: "chat users",
        page,
        pageLine: pageLine(ctx),
        line: (u) => {
          const msgs = pick(u, "messages");
          return listLine(
            u.id,
            u.name,
            chatTypeLabel(u.type),
            u.phone,
            u.email,
            pick(u, "needHuman", "need_human") === true ? "needs a human" : "",
            pick(u, "hasUnreadMessages", "unread") === true ? "unread" : "",
            Array.isArray(msgs) ? count(msgs.length, "message") : "",
          );
        },
      });
    },
  }),
  command({
    ...showing("user", 4, "chat user"),
    operations: ["getChatUser", "getContact"],
    run: async (a, ctx) => {
      const u = await ctx.api.getChatUser(a.id);
      const contactId = refId(u, "contactId", "contact_id");
      const channelId = refId(u, "channelId", "channel_id");
      const names = await relatedNames({
        contactId: contactId ? async () => contactName(await ctx.api.getContact(contactId)) : undefined,
        channelId: channelId ? () => channelLabel(ctx, channelId) : undefined,
      });
      // "Unread: 3" says it already; the name is the title; dates go in the footer.
      const pairs = recordPairs(
        // The channel type in words ("Phone chat", not `phonechat`).
        { ...u, ...(typeof u.type === "string" ? { type: chatTypeLabel(u.type) } : {}) },
        ["phone", "email", "channelId", "contactId", "unreadCount"],
        [
          "name",
          "hasUnreadMessages",
          "needHuman",
          "customFields",
          "custom_fields",
          "createdAt",
          "updatedAt",
          "lastLogin",
          "lastActivity",
          "conversations",
          "messages",
        ],
        names,
      );
      if (pick(u, "needHuman", "need_human") === true)
        pairs.unshift(["Status", ":raising_hand: Needs a human"]);
      const conversation = refId(
        (pick(u, "conversations") as Array<Record<string, unknown>> | undefined)?.[0],
        "id",
      );
      const last = pick(u, "lastActivity", "last_activity");
      return cardReply({
        title: show(pick(u, "name") ?? "") || `Chat user ${a.id}`,
        pairs,
        custom: customFieldLines(pick(u, "customFields", "custom_fields")),
        footer: `Chat user ${a.id}${typeof last === "string" ? ` · last active ${slackDate(last)}` : ""}`,
        buttons: [
          { text: "Send message", line: `send user:${a.id}`, style: "primary" },
          { text: "Edit", line: `user edit ${a.id}` },
          ...(conversation ? [{ text: "History", line: `history ${conversation}` }] : []),
          ...(contactId ? [{ text: "Contact", line: `contact ${contactId}` }] : []),
        ],
      });
    },
  }),
  command({
    ...onRecord(["user", "edit"], "chat user", "write"),
    options: {
      name: "name",
      email: "e-mail address",
      phone: "phone number",
      address: "postal address",
      avatar: "avatar URL",
    },
    extraOptions: "custom field values: <field-key>=<value>",
    schema: z.object({
      id: idArg,
      ...optionalTexts("name", "email", "phone", "address", "avatar"),
      extra: z.record(z.string(), z.string()).default({}),
    }),
    usage: "user edit <id> [name=] [email=] [phone=] [address=] [avatar=] [<field-key>=]",
    ...about("Change a chat user", "user edit 4 name=Ana email=ana@example.com loyalty_tier=gold"),
    operations: ["updateChatUser", "getChatUser", "listContactFields"],
    run: async (a, ctx) => {
      const bare =
        [a.name, a.email, a.phone, a.address, a.avatar].every((v) => v === undefined) &&
        !Object.keys(a.extra).length;
      if (bare) return recordFormReply(ctx, "chat-user", a.id);
      const standard = Object.fromEntries(
        Object.entries({
          name: a.name,
          email: a.email,
          phone: a.phone,
          address: a.address,
          avatar: a.avatar,
        }).filter(([, v]) => v !== undefined),
      );
      const body = {
        ...(Object.keys(standard).length ? { standardFields: standard } : {}),
        ...(Object.keys(a.extra).length ? { customFields: a.extra } : {}),
      };
      checkBody(updateChatUserSchema, body, { standardFields: "", customFields: "" });
      const u = await ctx.api.updateChatUser(a.id, body);
      const labels = Object.keys(a.extra).length
        ? Object.fromEntries(
            ((await ctx.api.listContactFields().catch(() => undefined))?.items ?? [])
              .filter((f) => typeof f.key === "string")
              .map((f) => [f.key as string, String(f.label || f.key)]),
          )
        : {};
      const changed = [
        ...Object.keys(standard).map((k) => memberWords(k)),
        ...Object.keys(a.extra).map((k) => memberWords(k, labels)),
      ];
      return cardAfterWrite(
        ctx,
        "user.show",
        a.id,
        changeLine(show(pick(u, "name") ?? "") || `Chat user ${a.id}`, changed, [
          ...Object.keys(standard)
            .filter((k) => standard[k] === "")
            .map((k) => memberWords(k)),
          ...Object.keys(a.extra)
            .filter((k) => a.extra[k] === "")
            .map((k) => memberWords(k, labels)),
        ]),
      );
    },
  }),
];
