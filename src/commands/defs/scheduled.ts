// A message sent later (issue 40 §2): `send <to> <text> at=<when>` asks to
// confirm ("Sends *Hola* to Lucía Romero at 09:00 Madrid time") and sets it on
// the claimed-once timer; `scheduled` lists those waiting (a writer's own, an
// admin every one), each with Edit… and Cancel; `scheduled edit <n> text=…
// at=…` and `scheduled cancel <n>`. Numbers are the workspace's own. The
// runner that sends them is src/commands/later-sends.ts.
import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import type { SendMessageInput } from "../../api/schemas.ts";
import { ACTION } from "../../blocks/actions.ts";
import { actions, context, esc, header, section, truncate } from "../../blocks/blocks.ts";
import { dateToken, localText, parseStartAt } from "../../domain/start-time.ts";
import type { Recipient } from "../args.ts";
import { idArg } from "../args.ts";
import { formReply } from "../forms.ts";
import {
  type LaterMessage,
  type LaterSend,
  laterSaid,
  laterWhen,
  laterWhom,
  notWaitingWords,
} from "../later-message.ts";
import { type CommandContext, type Preview, UserError } from "../registry.ts";
import { pick, show } from "../render.ts";
import type { Reply } from "../types.ts";
import { contactName } from "./common.ts";
import { about, bare, inTopic } from "./shapes.ts";

const command = inTopic("messages");

/** A recipient as a command line writes it: `+14155550123`, `contact:12`, `user:4`. */
export const recipientRef = (r: Recipient): string =>
  r.kind === "phone" ? r.to : r.kind === "contact" ? `contact:${r.contactId}` : `user:${r.chatUserId}`;

/** `at=` as a moment, or a refusal in words (the `at=` of campaign starts; quiet hours do not apply). */
export function laterAt(text: string, ctx: Pick<CommandContext, "now" | "startRules">): Date {
  const parsed = parseStartAt(text, ctx.now(), ctx.startRules.tz);
  if ("problem" in parsed) throw new UserError(`The time ${esc(parsed.problem)}.`);
  return parsed.at;
}

function storeOf(ctx: CommandContext) {
  if (!ctx.laterSends) throw new UserError("Messages sent later are not set up here.", false);
  return ctx.laterSends;
}

/** Whom, by name (a read; a nicety: undefined when it cannot be read or for a phone). */
async function nameOf(ctx: CommandContext, r: Recipient): Promise<string | undefined> {
  if (r.kind === "phone") return undefined;
  const name = await (r.kind === "contact"
    ? ctx.api.getContact(r.contactId).then((c) => contactName(c))
    : ctx.api.getChatUser(r.chatUserId).then((u) => show(pick(u, "name") ?? ""))
  ).catch(() => "");
  return name || undefined;
}

/** The prompt of `send … at=`: what, to whom, when, in the workspace's zone. */
export async function laterPreview(
  ctx: CommandContext,
  r: Recipient,
  body: Partial<SendMessageInput>,
  atText: string,
): Promise<Preview> {
  const at = laterAt(atText, ctx);
  const m: LaterMessage = { body: body as SendMessageInput, ref: recipientRef(r) };
  const toName = await nameOf(ctx, r);
  if (toName) m.toName = toName;
  const when = laterWhen(at, ctx.now(), ctx.startRules.tz);
  const line = `Sends *${esc(truncate(laterSaid(m), 500))}* to ${esc(laterWhom(m))} at ${esc(when)}`;
  return {
    text: `Sends ${laterSaid(m)} to ${laterWhom(m)} at ${when}.`,
    blocks: [
      section(`:alarm_clock: ${line}.`),
      context("Nothing is sent before then. Until then, `/sb scheduled` shows it, to edit or cancel."),
    ],
    confirm: { text: `Send at ${when}`, style: "primary" },
  };
}

/** Sets the message on the timer (after the Confirm): audited, answered with its number. */
export async function setLater(
  ctx: CommandContext,
  r: Recipient,
  body: SendMessageInput,
  atText: string,
): Promise<Reply> {
  const at = laterAt(atText, ctx);
  const payload: LaterMessage = { body, ref: recipientRef(r) };
  const toName = await nameOf(ctx, r);
  if (toName) payload.toName = toName;
  const s = await storeOf(ctx).set({
    at,
    setBy: ctx.actor.userId,
    via: ctx.actor.via,
    payload,
    now: ctx.now(),
  });
  await ctx.audit("message.later", true, { to: laterWhom(payload), at: at.toISOString(), number: s.number });
  const when = laterWhen(at, ctx.now(), ctx.startRules.tz);
  const text = `:alarm_clock: Message ${s.number} to *${esc(laterWhom(payload))}* will be sent at ${esc(when)} (${dateToken(at, ctx.startRules.tz)}).`;
  return {
    visibility: "ephemeral",
    text: `Message ${s.number} to ${laterWhom(payload)} will be sent at ${when}.`,
    blocks: [section(text), actions(itemButtons(s))],
  };
}

const itemButtons = (s: LaterSend) => [
  // Each button its own action id in a list (Slack refuses two alike in one message).
  { text: "Edit…", actionId: `${ACTION.run}:${2 * s.number}`, value: `scheduled edit ${s.number}` },
  {
    text: "Cancel",
    actionId: `${ACTION.run}:${2 * s.number + 1}`,
    value: `scheduled cancel ${s.number}`,
  },
];

/** Whether the actor may see and change every message sent later (an admin; the shell's operator). */
async function seesAll(ctx: CommandContext): Promise<boolean> {
  if (ctx.actor.via === "shell") return true;
  return (await ctx.admin?.mayAdminister(ctx.actor).catch(() => false)) ?? false;
}

/** The message `n` of this workspace, waiting, that the actor may change; else a refusal in words. */
async function waitingOf(ctx: CommandContext, n: number): Promise<LaterSend> {
  const s = await storeOf(ctx).get(n);
  if (!s || (s.setBy !== ctx.actor.userId && !(await seesAll(ctx))))
    throw new UserError(`There is no message ${n} waiting to be sent. \`/sb scheduled\` lists them.`, false);
  if (s.state !== "waiting")
    throw new UserError(`Message ${n} is no longer waiting: ${notWaitingWords(s)}.`, false);
  return s;
}

/** One line of the list: when, whom, what, who set it. */
function itemLine(s: LaterSend, tz: string | undefined): string {
  const who = s.via === "shell" ? "the shell" : `<@${s.setBy}>`;
  return `*${s.number}.* ${dateToken(s.at, tz)} to *${esc(laterWhom(s.payload))}* · set by ${who}\n>${esc(
    truncate(laterSaid(s.payload), 300),
  ).replace(/\n/g, "\n>")}`;
}

/** At most this many shown (each is two blocks). */
const SHOWN = 20;

/** The list of `/sb scheduled`: each message waiting with its time, whom, what, who set it; Edit… and Cancel. */
export function scheduledReply(list: LaterSend[], all: boolean, tz: string | undefined): Reply {
  if (!list.length)
    return {
      visibility: "ephemeral",
      text: all ? "No message is waiting to be sent." : "You have no message waiting to be sent.",
      blocks: [
        section(all ? "No message is waiting to be sent." : "You have no message waiting to be sent."),
        context("`/sb send <recipient> <text…> at=09:00` sends one at a time you choose."),
      ],
    };
  const next = list[0]!;
  const blocks: KnownBlock[] = [
    header(all ? "Messages waiting to be sent" : "Your messages waiting to be sent"),
    // The status line: how many, and the next one out.
    context(
      `:alarm_clock: ${list.length} waiting · the next ${dateToken(next.at, tz)} to *${esc(laterWhom(next.payload))}*`,
    ),
  ];
  for (const s of list.slice(0, SHOWN)) blocks.push(section(itemLine(s, tz)), actions(itemButtons(s)));
  blocks.push(
    context(
      `${list.length > SHOWN ? `The first ${SHOWN} of ${list.length}. ` : ""}Each is sent once, at its time, as the person who set it; quiet hours do not hold it.`,
    ),
  );
  return {
    visibility: "ephemeral",
    text: `${list.length} ${list.length === 1 ? "message" : "messages"} waiting: ${list
      .slice(0, SHOWN)
      .map((s) => `${s.number}. ${localText(s.at, tz)} to ${laterWhom(s.payload)}`)
      .join("; ")}`,
    blocks,
  };
}

export const SCHEDULED_COMMANDS = [
  command({
    ...bare(["scheduled"]),
    summary: "Messages waiting to be sent later (yours; an admin sees every one)",
    help: 'A message is set to be sent later with `send <recipient> <text…> at=<when>`: `at=09:00` (the next 09:00), `at="2026-12-01 09:00"` (in the workspace\'s time zone) or an ISO 8601 time with its offset. Each one listed has Edit… and Cancel. Quiet hours do not hold a message a person timed.',
    operations: [],
    run: async (_a, ctx) => {
      const all = await seesAll(ctx);
      const list = await storeOf(ctx).waiting(all ? undefined : ctx.actor.userId);
      return scheduledReply(list, all, ctx.startRules.tz);
    },
  }),
  command({
    words: ["scheduled", "cancel"],
    positionals: [{ name: "n" }],
    schema: z.object({ n: idArg }),
    access: "write",
    ...about("Cancel a message waiting to be sent later", "scheduled cancel 1"),
    operations: [],
    run: async (a, ctx) => {
      const s = await waitingOf(ctx, a.n);
      const done = await storeOf(ctx).move(s.number, ["waiting"], "cancelled", ctx.now(), {
        decidedBy: ctx.actor.userId,
      });
      if (!done)
        throw new UserError(`Message ${a.n} is no longer waiting: it is being sent or was sent.`, false);
      await ctx.audit("message.later.cancel", true, { to: laterWhom(s.payload), number: s.number });
      const text = `Message ${s.number} to *${esc(laterWhom(s.payload))}* is cancelled: it will not be sent.`;
      return {
        visibility: "ephemeral",
        text: text.replace(/\*/g, ""),
        blocks: [section(`:wastebasket: ${text}`)],
      };
    },
  }),
  command({
    words: ["scheduled", "edit"],
    positionals: [{ name: "n" }],
    options: {
      text: "the message's new text (a text message)",
      at: 'the new time: 09:00, "2026-12-01 09:00" or ISO 8601',
    },
    schema: z.object({
      n: idArg,
      text: z.string().trim().min(1, { error: "must not be empty" }).optional(),
      at: z.string().trim().min(1, { error: "must not be empty" }).optional(),
    }),
    access: "write",
    usage: 'scheduled edit <n> [text="…"] [at=<when>]',
    ...about(
      "Change the text or the time of a message waiting to be sent later",
      'scheduled edit 1 text="Hola Lucía, ¿mañana a las 10?"',
    ),
    help: "In Slack, `scheduled edit <n>` alone (or Edit… on the list) opens a form with its text and time, the time in the workspace's zone. Only its writer or an admin may change it.",
    operations: [],
    run: async (a, ctx) => {
      const s = await waitingOf(ctx, a.n);
      const tz = ctx.startRules.tz;
      if (a.text === undefined && a.at === undefined) {
        // In Slack, Edit… (or the line alone) opens the form: its text and time, in the workspace's zone.
        if (ctx.actor.via !== "shell")
          return formReply(
            ctx,
            {
              kind: "scheduled-edit",
              instead: "scheduled.edit",
              load: async () => ({
                number: s.number,
                version: s.version,
                whom: laterWhom(s.payload),
                ...(s.payload.body.type === "text" ? { text: String(s.payload.body.text ?? "") } : {}),
                said: laterSaid(s.payload),
                at: localText(s.at, tz ?? "UTC"),
                ...(tz ? { tz } : {}),
                setBy: s.setBy,
              }),
            },
            `Opening message ${s.number}…`,
          );
        const said = laterSaid(s.payload).replace(/"/g, "'");
        const line = `scheduled edit ${s.number} text="${said}" at="${localText(s.at, tz).replace(/ UTC$/, "")}"`;
        const text = `Message ${s.number} to *${esc(laterWhom(s.payload))}*, at ${dateToken(s.at, tz)}. Give what changes on the line:`;
        return {
          visibility: "ephemeral",
          text: `Message ${s.number}: give what changes, like ${line}`,
          blocks: [section(text), section(`\`\`\`/sb ${esc(truncate(line, 2800))}\`\`\``)],
        };
      }
      if (a.text !== undefined && s.payload.body.type !== "text")
        throw new UserError(
          `Message ${s.number} is a ${esc(String(s.payload.body.type))} message: only a text message's text can be changed. Cancel it and send a new one.`,
          false,
        );
      const at = a.at !== undefined ? laterAt(a.at, ctx) : undefined;
      const payload: LaterMessage | undefined =
        a.text !== undefined
          ? { ...s.payload, body: { ...s.payload.body, text: a.text } as SendMessageInput }
          : undefined;
      const moved = await storeOf(ctx).move(s.number, ["waiting"], "waiting", ctx.now(), {
        version: s.version,
        ...(at ? { at } : {}),
        ...(payload ? { payload } : {}),
      });
      if (!moved)
        throw new UserError(
          `Message ${a.n} changed or was sent meanwhile: look at \`/sb scheduled\` again.`,
          false,
        );
      await ctx.audit("message.later.edit", true, {
        to: laterWhom(moved.payload),
        at: moved.at.toISOString(),
        number: moved.number,
        changed: [...(a.text !== undefined ? ["text"] : []), ...(at ? ["time"] : [])],
      });
      const when = laterWhen(moved.at, ctx.now(), tz);
      const text = `Message ${moved.number} to *${esc(laterWhom(moved.payload))}* will be sent at ${esc(when)}:\n>${esc(
        truncate(laterSaid(moved.payload), 1000),
      ).replace(/\n/g, "\n>")}`;
      return {
        visibility: "ephemeral",
        text: `Message ${moved.number} to ${laterWhom(moved.payload)} will be sent at ${when}.`,
        blocks: [section(`:pencil2: ${text}`), actions(itemButtons(moved))],
      };
    },
  }),
];
