import { z } from "zod";
import {
  createTemplateSchema,
  normalizeTemplateName,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
} from "../../api/schemas.ts";
import type { ApiRecord } from "../../api/types.ts";
import { capitalize, esc, slackDate } from "../../blocks/blocks.ts";
import { choice, optionalId, requiredText } from "../args.ts";
import { formReply } from "../forms.ts";
import { channelFormData, channelName, nameChannelsLine } from "../lookups.ts";
import { UserError } from "../registry.ts";
import { cardReply, listLine, pageReply, pick, show } from "../render.ts";
import { fillPlaceholders } from "./campaign-message.ts";
import { checkBody } from "./check.ts";
import { announce, cardAfterWrite, channelLabel, channelNamesOf, refId, resolveChannel } from "./common.ts";
import { about, bare, deleteCommand, inTopic, showing } from "./shapes.ts";

const command = inTopic("templates");

const FIRST = ["id", "name", "language", "category", "status", "integrationId", "bodyText"];
const STATUS_EMOJI: Record<string, string> = {
  approved: ":white_check_mark:",
  pending: ":hourglass_flowing_sand:",
  rejected: ":no_entry:",
  paused: ":double_vertical_bar:",
  disabled: ":no_entry_sign:",
};
/** The statuses the API lets a template be deleted in (spec: template deletion rule). */
const DELETABLE = ["pending", "rejected", "disabled"];
const NAMES = {
  integrationId: "channel",
  language: "lang",
  bodyText: "body",
  footerText: "footer",
  bodyExamples: "example",
  buttons: "button",
};

/** `button=Yes` is a quick reply; `button="Open|https://…"` a URL button. */
function parseButton(spec: string) {
  const bar = spec.lastIndexOf("|");
  if (bar > 0 && /^https?:\/\//i.test(spec.slice(bar + 1).trim())) {
    return { type: "URL" as const, text: spec.slice(0, bar).trim(), url: spec.slice(bar + 1).trim() };
  }
  return { type: "QUICK_REPLY" as const, text: spec.trim() };
}

export const TEMPLATE_COMMANDS = [
  command({
    id: "templates.list",
    words: ["templates"],
    options: { channel: "only this channel's templates", status: `one of ${TEMPLATE_STATUSES.join(", ")}` },
    schema: z.object({ channel: optionalId, status: choice(TEMPLATE_STATUSES).optional() }),
    access: "read",
    ...about("List message templates", "templates status=approved"),
    operations: ["listTemplates"],
    run: async (a, ctx) => {
      const [page, names] = await Promise.all([
        ctx.api.listTemplates({ channelId: a.channel, status: a.status }),
        channelNamesOf(ctx)(),
      ]);
      // The channel by its name ("Acme Store"), else "Channel 2"; the channels shown by number are asked a name.
      const idOf = (t: ApiRecord) => refId(t, "integrationId", "integration_id");
      const channel = (t: ApiRecord) => {
        const id = idOf(t);
        return id === undefined ? "" : channelName(id, names);
      };
      const unnamed = new Set(
        page.items.map(idOf).filter((id): id is number => id !== undefined && names[id] === undefined),
      );
      const footer = nameChannelsLine([...unnamed].sort((x, y) => x - y));
      return pageReply({
        title: "Templates",
        one: "template",
        plural: "templates",
        page,
        ...(footer ? { footer } : {}),
        // `✅ Approved · order_update · en · Utility · Main line`: the status as an icon and a word.
        line: (t) => {
          const status = String(t.status ?? "").toLowerCase();
          const category = String(t.category ?? "");
          return `${STATUS_EMOJI[status] ?? ""} ${listLine(
            t.id,
            t.name,
            t.language,
            category ? capitalize(category.toLowerCase()) : "",
            status ? capitalize(status) : "",
            channel(t),
          )}`.trim();
        },
      });
    },
  }),
  command({
    ...showing("template", 5),
    operations: ["getTemplate"],
    run: async (a, ctx) => {
      const t = await ctx.api.getTemplate(a.id);
      // The channel by its name (`/sb channel name`), the default one told apart.
      const channel = refId(t, "integrationId", "integration_id");
      const label = channel
        ? `${esc(await channelLabel(ctx, channel))}${channel === ctx.defaultChannelId ? " (default)" : ""}`
        : undefined;
      const status = String(pick(t, "status") ?? "").toLowerCase();
      const category = String(pick(t, "category") ?? "");
      const body = String(pick(t, "bodyText", "body_text", "body") ?? "");
      const examples = pick(t, "bodyExamples", "body_examples");
      const sample =
        examples && typeof examples === "object" && !Array.isArray(examples)
          ? fillPlaceholders(
              body,
              Object.fromEntries(
                Object.entries(examples as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
              ),
            )
          : body;
      const quote = (text: string) => `>${esc(show(text, 1200)).replace(/\n/g, "\n>")}`;
      const created = pick(t, "created_at", "createdAt");
      // One card: name and language, a status line, the message as customers read it, what to do next.
      return cardReply({
        title: `${show(pick(t, "name") ?? `Template ${a.id}`, 100)} · ${show(pick(t, "language") ?? "", 20)}`,
        pairs: [
          ["Status", `${STATUS_EMOJI[status] ?? ""} ${esc(status ? capitalize(status) : "unknown")}`.trim()],
          ["Category", esc(category ? capitalize(category.toLowerCase()) : "—")],
          ...(label ? ([["Channel", label]] as Array<[string, string]>) : []),
        ],
        custom: body
          ? [
              sample !== body
                ? `*Customers read* (with the examples)\n${quote(sample)}`
                : `*Message*\n${quote(body)}`,
              ...(sample !== body ? [`*Placeholders*\n${quote(body)}`] : []),
            ]
          : [],
        footer: `Template ${a.id}${typeof created === "string" ? ` · created ${slackDate(created)}` : ""}${
          status === "pending" ? " · waiting for the provider's approval" : ""
        }`,
        buttons: [
          ...(status === "approved"
            ? [{ text: "New campaign", line: "campaign new", style: "primary" as const }]
            : []),
          ...(status === "pending" && channel
            ? [{ text: "Check approval", line: `templates sync channel=${channel}` }]
            : []),
          ...(DELETABLE.includes(status)
            ? [{ text: "Delete…", line: `template delete ${a.id}`, style: "danger" as const }]
            : []),
        ],
      });
    },
  }),
  command({
    words: ["template", "add"],
    positionals: [{ name: "name" }],
    options: {
      lang: "language code, for example en or pt_BR",
      category: TEMPLATE_CATEGORIES.join(", "),
      body: 'body text with {{placeholders}}, quoted: body="Hi {{name}}"',
      footer: "footer, at most 60 characters",
      button: 'a button, repeatable: button=Yes (quick reply) or button="Open|https://example.com" (URL)',
      channel: "channel id; default: the main channel",
    },
    repeatable: ["button"],
    extraOptions: "one example value per body placeholder: name=Ana",
    schema: z.object({
      name: requiredText("the template's name"),
      lang: requiredText("a language code"),
      category: choice(TEMPLATE_CATEGORIES, (v) => v.toUpperCase()),
      body: requiredText("the body text"),
      footer: z.string().optional(),
      button: z.array(z.string()).optional(),
      channel: optionalId,
      extra: z.record(z.string(), z.string()).default({}),
    }),
    access: "write",
    usage:
      'template add <name> lang=<code> category=<category> body="…" [footer=] [button=…] [channel=] [<placeholder>=<example>…]',
    ...about(
      "Create a template and submit it for approval",
      'template add shipping_notice lang=en category=UTILITY body="Hi {{name}}, your order shipped" name=Ana',
    ),
    help: "The service normalizes the name to lower case with underscores. Give an example for each {{placeholder}} of the body.",
    operations: ["createTemplate", "listTemplates"],
    run: async (a, ctx) => {
      const body = {
        integrationId: a.channel ?? ctx.defaultChannelId ?? 1,
        name: a.name,
        language: a.lang,
        category: a.category,
        bodyText: a.body,
        ...(Object.keys(a.extra).length ? { bodyExamples: a.extra } : {}),
        ...(a.footer !== undefined ? { footerText: a.footer } : {}),
        ...(a.button?.length ? { buttons: a.button.map(parseButton) } : {}),
      };
      checkBody(createTemplateSchema, body, NAMES);
      body.integrationId = await resolveChannel(ctx, a.channel);
      const t = await ctx.api.createTemplate(body);
      const text = `Template *${esc(pick(t, "name") ?? normalizeTemplateName(a.name))}* submitted for approval`;
      return t.id !== undefined
        ? cardAfterWrite(ctx, "template.show", Number(t.id), text)
        : announce(ctx, text, t, FIRST);
    },
  }),
  command(
    deleteCommand({
      noun: "template",
      ...about("Delete a pending, rejected or disabled template (asks to confirm)", "template delete 6"),
      api: "Template",
      check: (t, id) => {
        // The API deletes only these (the spec's deletion rule): say so now rather than after a Confirm.
        const status = String(pick(t, "status") ?? "").toLowerCase();
        if (status && !DELETABLE.includes(status))
          throw new UserError(
            `Template *${esc(show(pick(t, "name") ?? `#${id}`))}* is ${esc(status)}, and the messaging API deletes only ${DELETABLE.join(", ")} templates, so it stays. ${
              status === "approved"
                ? "To stop using it, leave it out of new campaigns; the provider can disable it, and then it can be deleted."
                : "Once the provider disables it, it can be deleted."
            } Nothing was changed.`,
            false,
            [
              { text: "Open", line: `template ${id}` },
              { text: "Templates", line: "templates" },
            ],
          );
      },
      first: FIRST,
    }),
  ),
  command({
    words: ["templates", "sync"],
    options: { channel: "channel id; default: the main channel" },
    schema: z.object({ channel: optionalId }),
    access: "write",
    ...about("Synchronize a channel's templates with the provider", "templates sync channel=1"),
    operations: ["syncTemplates", "listTemplates"],
    run: async (a, ctx) => {
      const channelId = await resolveChannel(ctx, a.channel);
      const r = await ctx.api.syncTemplates(channelId);
      const name = await ctx.channels.name(channelId).catch(() => undefined);
      return announce(ctx, `Templates of ${name ? esc(name) : `channel ${channelId}`} synchronized`, r);
    },
  }),
  command({
    ...bare(["template", "new"], "write"),
    summary: "Create a template with a form (Slack); in the shell, use `template add`",
    operations: ["listTemplates", "createTemplate"],
    run: async (_a, ctx) => {
      const load = async () => ({
        ...(await channelFormData(ctx.api, undefined, channelNamesOf(ctx))),
        defaultChannelId: ctx.defaultChannelId,
      });
      return formReply(
        ctx,
        {
          kind: "template",
          load,
          instead: "template.add",
        },
        "Opening the template form…",
      );
    },
  }),
];
