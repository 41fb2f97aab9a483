// Events out (issue 40 §3, docs/automations.md): `/sb automations` lists this
// workspace's hooks (their event, the address masked, the last delivery, the
// failures and Retry), `automation add <event> <url> [inbox=#channel]`,
// `delete`, `test`, `rotate` and `retry`. Admins only (as `/sb settings set`);
// each change audited with the address masked, never as typed (core/audit.ts
// masks the typed line too). An endpoint's signing secret is shown once.
import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import { type Automations, EVENT_TYPES } from "../../automations/index.ts";
import { ACTION } from "../../blocks/actions.ts";
import { actions, context, esc, header, section, slackDate } from "../../blocks/blocks.ts";
import type { HookRow } from "../../store/automations.ts";
import { idArg } from "../args.ts";
import { errorReply } from "../errors.ts";
import { type CommandContext, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";
import { notAdministrator } from "../workspace-admin.ts";
import { about, bare, inTopic } from "./shapes.ts";

const command = inTopic("workspace");

/** The workspace's automations, when the actor is an admin; else a refusal naming who is. */
async function automationsFor(ctx: CommandContext, what: string): Promise<Automations> {
  const automations = ctx.automations;
  if (!automations || !ctx.admin)
    throw new UserError("Automations are not set up in this Switchboard.", false);
  if (!(await ctx.admin.mayAdminister(ctx.actor)))
    throw new UserError(await notAdministrator(ctx.admin, what), false);
  return automations;
}

const ok = (text: string, more: KnownBlock[] = []): Reply => ({
  visibility: "ephemeral",
  text,
  blocks: [section(`:white_check_mark: ${text}`), ...more],
});

const kindWords = (h: Pick<HookRow, "kind">) => (h.kind === "workflow" ? "Slack workflow" : "webhook");

/** Each event as the list says it (the event's name is what `automation add` takes). */
const EVENT_WORDS: Record<string, string> = {
  "message.received": "A customer writes",
  "conversation.assigned": "A conversation is assigned",
  "conversation.resolved": "A conversation is resolved",
  "rating.received": "A customer rates a conversation",
  "reply_target.breached": "A reply target is missed",
  "campaign.started": "A campaign starts",
  "campaign.completed": "A campaign completes",
  "campaign.failed": "A campaign fails",
  "import.finished": "A contact import finishes",
};
const eventWords = (event: string) => EVENT_WORDS[event] ?? event;

/** "2 automations · 1 failing · 1 being retried": the list's status line. */
function statusLine(hooks: HookRow[]): string {
  const failing = hooks.filter((h) => h.failures > 0).length;
  const retrying = hooks.filter((h) => h.lastState === "pending").length;
  return [
    `${hooks.length} ${hooks.length === 1 ? "automation" : "automations"}`,
    ...(failing ? [`:x: ${failing} failing`] : []),
    ...(retrying ? [`:hourglass_flowing_sand: ${retrying} being retried`] : []),
    ...(!failing && !retrying ? [":white_check_mark: all delivering"] : []),
  ].join(" · ");
}

/** A hook's last delivery and failures, in words. */
function lastWords(h: HookRow): string {
  if (!h.lastAt) return "No delivery yet";
  const when = slackDate(h.lastAt);
  const detail = h.lastDetail ? ` (${esc(h.lastDetail)})` : "";
  const last =
    h.lastState === "delivered"
      ? `:white_check_mark: Last delivered ${when}`
      : h.lastState === "failed"
        ? `:x: Last delivery failed ${when}${detail}`
        : `:hourglass_flowing_sand: Being retried: the last attempt ${when}${detail}`;
  return h.failures ? `${last} · *${h.failures === 1 ? "1 event" : `${h.failures} events`} failed*` : last;
}

/** The list: one section a hook, Retry under a hook with failed deliveries. */
export function automationsBlocks(hooks: HookRow[]): KnownBlock[] {
  const blocks: KnownBlock[] = [header("Automations")];
  if (!hooks.length)
    blocks.push(
      section(
        "No automation yet: `/sb automation add <event> <url>` sends an event to a workflow or an endpoint.",
      ),
    );
  if (hooks.length) blocks.push(context(statusLine(hooks)));
  for (const h of hooks) {
    const inbox = h.inbox ? ` in <#${h.inbox}>` : "";
    blocks.push(
      section(
        `*${h.number}. ${esc(eventWords(h.event))}${inbox}* → ${kindWords(h)} \`${esc(h.urlMasked)}\`\n${lastWords(h)}`,
      ),
    );
    if (h.failures > 0)
      blocks.push(
        actions([
          {
            text: `Retry ${h.failures === 1 ? "the failed event" : `${h.failures} failed events`}`,
            actionId: ACTION.run,
            value: `automation retry ${h.number}`,
            style: "primary",
          },
        ]),
      );
  }
  blocks.push(
    context(
      `Add one with \`/sb automation add <event> <address>\`, the event one of ${EVENT_TYPES.map((t) => `\`${t}\``).join(", ")}.`,
    ),
  );
  return blocks;
}

/** What the audit keeps of a hook: its number, event and masked address. */
const auditOf = (h: HookRow) => ({ number: h.number, event: h.event, url: h.urlMasked });

/** `automation <word> <n>`: an admin's action on one hook of the list. */
function hookCommand(
  word: string,
  summary: string,
  what: string,
  run: (h: HookRow, a: Automations, ctx: CommandContext) => Promise<Reply>,
) {
  return command({
    id: `automation.${word}`,
    words: ["automation", word],
    positionals: [{ name: "n" }],
    schema: z.object({ n: idArg }),
    access: "read",
    usage: `automation ${word} <n>`,
    ...about(`${summary} (admins)`, `automation ${word} 1`),
    operations: [],
    run: async (args, ctx) => {
      const a = await automationsFor(ctx, what);
      const h = await a.store.get(args.n);
      if (!h) throw new UserError(`There is no automation ${args.n}: \`/sb automations\` lists them.`);
      return run(h, a, ctx);
    },
  });
}

export const AUTOMATION_COMMANDS = [
  command({
    ...bare(["automations"]),
    summary: "This workspace's automations: events sent to workflows and endpoints (admins)",
    operations: [],
    run: async (_a, ctx) => {
      const a = await automationsFor(ctx, "see the automations");
      const hooks = await a.list();
      const text = hooks.length
        ? hooks
            .map((h) => `${h.number}. ${h.event} → ${h.urlMasked}: ${h.lastState ?? "no delivery yet"}`)
            .join("\n")
        : "No automation yet.";
      return { visibility: "ephemeral", text, blocks: automationsBlocks(hooks) };
    },
  }),
  command({
    words: ["automation", "add"],
    positionals: [{ name: "event" }, { name: "url" }],
    options: { inbox: "a conversation event only from this inbox's channel (#channel)" },
    schema: z.object({ event: z.string(), url: z.string(), inbox: z.string().optional() }),
    access: "read",
    usage: "automation add <event> <url> [inbox=#channel]",
    ...about(
      "Send an event to a Slack workflow's webhook trigger or to an endpoint (admins)",
      "automation add conversation.resolved https://example.com/switchboard",
    ),
    help: "A Slack workflow (https://hooks.slack.com/triggers/…) gets the event's variables; any other https:// endpoint a signed JSON POST, its secret shown once.",
    operations: [],
    run: async (a, ctx) => {
      const automations = await automationsFor(ctx, "add automations");
      const inbox = a.inbox?.trim().replace(/^<#|^#|[|>].*$/g, "") || undefined;
      if (inbox && !(await ctx.inbox?.store.inbox(inbox)))
        return errorReply(
          `<#${esc(inbox)}> has no inbox: nothing was added.`,
          "`/sb inbox on` in that channel makes one.",
        );
      const out = await automations.add(a.event.trim(), a.url, ctx.actor.userId, inbox);
      if (!out.ok) return errorReply(`${esc(out.message)} Nothing was added.`);
      await ctx.audit("automation.add", true, { number: out.number, event: a.event, url: out.masked, inbox });
      const what = `Automation *${out.number}* added: \`${esc(a.event)}\` → ${esc(out.masked)} (${kindWords(out)}).`;
      const more = out.secret
        ? [
            section(
              `Its signing secret, shown this once (\`automation rotate ${out.number}\` makes a new one):\n\`${out.secret}\``,
            ),
            context("Check `Switchboard-Signature` with it as docs/automations.md shows."),
          ]
        : [
            context(
              "The workflow's trigger must declare exactly the variables docs/automations.md lists for this event.",
            ),
          ];
      return { ...ok(what, more), text: out.secret ? `${what} Signing secret: ${out.secret}` : what };
    },
  }),
  hookCommand("delete", "Stop sending an automation's events", "delete automations", async (h, a, ctx) => {
    await a.remove(h.number);
    await ctx.audit("automation.delete", true, auditOf(h));
    return ok(`Automation *${h.number}* deleted: \`${esc(h.event)}\` no longer goes to ${esc(h.urlMasked)}.`);
  }),
  hookCommand("test", "Send a test event to an automation now", "test automations", async (h, a, ctx) => {
    const r = await a.test(h.number);
    if (!r) return errorReply(`Automation *${h.number}* cannot be read: nothing was sent.`);
    await ctx.audit("automation.test", r.kind === "delivered", auditOf(h));
    if (r.kind === "delivered")
      return ok(`A test \`${esc(h.event)}\` went to ${esc(h.urlMasked)}: it answered HTTP ${r.status}.`);
    return errorReply(
      `The test \`${esc(h.event)}\` to ${esc(h.urlMasked)} was not taken: ${esc(r.detail)}.`,
      r.kind === "retry"
        ? "Real events are tried again for 24 hours."
        : "Real events to it fail the same way.",
    );
  }),
  hookCommand(
    "rotate",
    "A new signing secret for an endpoint's automation, shown once",
    "rotate automation secrets",
    async (h, a, ctx) => {
      if (h.kind !== "endpoint")
        return errorReply(`Automation *${h.number}* is a Slack workflow: it has no signing secret.`);
      const secret = await a.rotate(h.number);
      if (!secret) return errorReply(`Automation *${h.number}* cannot be changed: nothing was changed.`);
      await ctx.audit("automation.rotate", true, auditOf(h));
      const what = `Automation *${h.number}* has a new signing secret; the old one no longer signs.`;
      return {
        ...ok(what, [section(`Shown this once:\n\`${secret}\``)]),
        text: `${what} New secret: ${secret}`,
      };
    },
  ),
  hookCommand("retry", "Send an automation's failed events again", "retry automations", async (h, a, ctx) => {
    const n = await a.retry(h.number);
    if (!n) {
      const none = `Automation *${h.number}* has no failed event: nothing to send again.`;
      return { visibility: "ephemeral", text: none, blocks: [section(`:information_source: ${none}`)] };
    }
    await ctx.audit("automation.retry", true, { ...auditOf(h), events: n });
    const which = n === 1 ? "Its failed event is" : `Its ${n} failed events are`;
    return ok(`${which} being sent again to ${esc(h.urlMasked)}.`);
  }),
];
