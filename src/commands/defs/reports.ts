// Campaign reports: schedules posted to a channel, the list of a channel's
// schedules, deleting one, and a report at once. The schedules themselves run
// in the Slack app (src/reports/scheduler.ts on pg-boss); these commands talk
// to them through ctx.reports (src/reports/service.ts), the same in the shell.
import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import { NotFoundError } from "../../api/errors.ts";
import type { FieldProblem } from "../../api/schemas.ts";
import {
  blocksToText,
  capitalize,
  context,
  esc,
  fieldsSection,
  header,
  section,
} from "../../blocks/blocks.ts";
import type { ScheduleRow } from "../../domain/reports.ts";
import { targetLabel } from "../../reports/render.ts";
import { formatLocal, nextRuns, parseScheduleArgs, parseTarget, targetText } from "../../reports/schedule.ts";
import { PostRefusedError } from "../../reports/scheduler.ts";
import type { ReportService } from "../../reports/service.ts";
import { idArg, requiredText } from "../args.ts";
import { errorReply, inputErrorReply } from "../errors.ts";
import { type AnySpec, type CommandContext, UserError } from "../registry.ts";
import { ACTION, type Reply } from "../types.ts";
import { nameOf, relatedNames } from "./common.ts";
import { about, inTopic } from "./shapes.ts";

const command = inTopic("reports");

const TARGET_HELP =
  "a campaign id, `running` (every running campaign), `all` (the 10 most recent) or `inbox` (the desk of the channel's inbox)";
const MAX_LISTED = 40;

function reportsOf(ctx: CommandContext): ReportService {
  if (!ctx.reports) throw new UserError("Reports are not set up in this Switchboard.", false);
  return ctx.reports;
}

/** `<#C1>` in Slack; the bare id in the shell (it has no channel names). */
const channelRef = (channel: string) => (/^[CGD][A-Z0-9]+$/.test(channel) ? `<#${channel}>` : esc(channel));

/** What a schedule reports on: `campaign *Spring sale*` where the name is known, else `campaign 12`. */
const targetName = (target: string, names: Map<number, string> = new Map()) => {
  const t = parseTarget(target);
  if ("field" in t) return esc(target);
  const name = t.kind === "campaign" ? names.get(t.id) : undefined;
  return name ? `campaign *${esc(name)}*` : targetLabel(t);
};

/** The names of the campaigns schedules report on; a name not read leaves the number. */
async function campaignNames(ctx: CommandContext, targets: string[]): Promise<Map<number, string>> {
  const ids = new Set<number>();
  for (const target of targets) {
    const t = parseTarget(target);
    if (!("field" in t) && t.kind === "campaign") ids.add(t.id);
  }
  const names = await relatedNames(
    Object.fromEntries(
      [...ids].slice(0, 20).map((id) => [String(id), () => ctx.api.getCampaign(id).then((c) => nameOf(c))]),
    ),
  );
  return new Map(Object.entries(names).map(([id, name]) => [Number(id), String(name)]));
}

function nextRun(row: ScheduleRow, now: Date): string {
  const [next] = nextRuns(row.cron, row.tz, now, 1);
  return next ? formatLocal(next, row.tz) : "—";
}

/** A campaign named by id must exist before anything is stored or posted; an inbox report needs the channel's inbox. */
async function checkCampaign(
  ctx: CommandContext,
  target: string,
  channel?: string,
): Promise<Reply | undefined> {
  const t = parseTarget(target);
  if (!("field" in t) && t.kind === "inbox") {
    if (channel && (await ctx.inbox?.store.inbox(channel))) return undefined;
    return errorReply(
      `${channel ? channelRef(channel) : "This channel"} has no inbox, so it has no desk report: nothing was scheduled.`,
      "Name the inbox's channel (`/sb report inbox #support every mon at 09:00`), or turn one on with `/sb inbox on`.",
    );
  }
  if ("field" in t || t.kind !== "campaign") return undefined;
  try {
    await ctx.api.getCampaign(t.id);
    return undefined;
  } catch (err) {
    if (err instanceof NotFoundError)
      return errorReply(
        `There is no campaign #${t.id}: nothing was done.`,
        "`/sb campaigns` lists the campaigns; `running` or `all` report on several.",
      );
    throw err;
  }
}

const scheduleSpec: AnySpec = command({
  id: "report.schedule",
  words: ["report"],
  positionals: [{ name: "target" }, { name: "when", rest: "words" }],
  options: {
    tz: "IANA time zone of the schedule (default: your Slack time zone)",
  },
  schema: z.object({
    target: requiredText(TARGET_HELP),
    when: z.array(z.string()).default([]),
    tz: z.string().optional(),
  }),
  access: "write",
  usage:
    "report <campaign-id | running | all | inbox> [every day|weekday|mon…sun|<N>h] [at HH:MM] [tz=<zone>] [#channel]",
  ...about(
    "Post a campaign report to a channel on a schedule (default: every day at 09:00, here)",
    "report running every weekday at 09:00 tz=Europe/Paris",
  ),
  help: "The report shows each campaign's recipients by status, the delivery, read and failure rates, and the change since the schedule's previous report. Days: `mon`, `mon,thu`, `sat-sun`; every N hours: `6h`. Times: `09:00`, `9am`. The channel: pick it with `#` (default: the channel you type in). `inbox`: the desk report of that channel's inbox (opened, resolved, first-reply times, targets met, snoozed, ratings, per assignee) since the previous one, posted there.",
  noun: "campaign",
  operations: ["getCampaign"],
  run: async (a, ctx) => {
    const reports = reportsOf(ctx);
    const args = [a.target, ...a.when, ...(a.tz !== undefined ? [`tz=${a.tz}`] : [])];
    const tz = a.tz === undefined ? await reports.defaultTz(ctx.actor) : undefined;
    const parsed = parseScheduleArgs(args, { tz, channel: ctx.actor.channelId });
    const problems: FieldProblem[] = parsed.ok ? [] : [...parsed.problems];
    const channel = parsed.ok ? parsed.spec.channel : undefined;
    if (parsed.ok && !channel) {
      problems.push({
        field: "channel",
        rule:
          ctx.actor.via === "shell"
            ? "is required in the shell, which has no channel of its own: add the Slack channel's id, for example C0123ABCD (Slack shows it at the bottom of the channel's details); the report is posted there while the Slack app runs"
            : "is required here: name it as a Slack channel id, for example C0123ABCD",
      });
    } else if (channel?.startsWith("#")) {
      problems.push({
        field: "channel",
        rule:
          ctx.actor.via === "shell"
            ? `\`${channel}\` is not a channel id: give the Slack channel's id, for example C0123ABCD (Slack shows it at the bottom of the channel's details)`
            : `\`${channel}\` is not a channel link: type # and pick the channel from Slack's list (it turns blue)`,
      });
    }
    if (!parsed.ok || problems.length) return inputErrorReply(scheduleSpec, problems);
    const missing = await checkCampaign(ctx, a.target, channel);
    if (missing) return missing;

    const row = await reports.addSchedule(parsed.spec, { createdBy: ctx.actor.userId, channel: channel! });
    const next = nextRun(row, reports.now());
    const what = `${targetName(row.target, await campaignNames(ctx, [row.target]))}, ${esc(row.description)}`;
    const text = `Report #${row.number} scheduled in ${channelRef(row.channel)}: ${what}. Next: ${next} (by ${ctx.who})`;
    const notes = [
      `\`/sb reports\` lists this channel's schedules; \`/sb report delete ${row.number}\` removes it.`,
    ];
    // The shell alone posts nothing; said without the setting that starts the Slack app.
    if (!reports.live) notes.push("It is posted only while Switchboard runs in Slack.");
    return {
      visibility: "in_channel",
      text,
      blocks: [
        section(`:calendar: *Report #${row.number}* scheduled in ${channelRef(row.channel)}: ${what}.`),
        section(`*Next:* ${esc(next)} (by ${ctx.who})`),
        context(notes.join(" ")),
      ],
    };
  },
});

function scheduleLine(
  row: ScheduleRow,
  now: Date,
  withChannel: boolean,
  names: Map<number, string> = new Map(),
): string {
  const last = row.lastRunAt ? ` · last: ${esc(formatLocal(row.lastRunAt, row.tz))}` : "";
  const where = withChannel ? ` · in ${channelRef(row.channel)}` : "";
  const by = row.createdBy === "shell" ? "the shell" : `<@${row.createdBy}>`;
  return `*#${row.number}* ${targetName(row.target, names)} · ${esc(row.description)}${where}\nNext: ${esc(nextRun(row, now))} · by ${by}${last}`;
}

const listSpec = command({
  id: "reports.list",
  words: ["reports"],
  flags: { all: "the schedules of every channel, not only this one" },
  schema: z.object({ all: z.boolean().optional() }),
  access: "read",
  usage: "reports [all]",
  ...about("List the report schedules of this channel (next run in local time, who made it)", "reports"),
  operations: ["getCampaign"],
  run: async (a, ctx) => {
    const reports = reportsOf(ctx);
    const channel = a.all ? undefined : ctx.actor.channelId;
    const rows = await reports.listSchedules(channel ? { channel } : {});
    const where = channel ? `in ${channelRef(channel)}` : "in every channel";
    if (!rows.length) {
      const none = channel
        ? `No report schedules in ${channelRef(channel)}`
        : "No channel has a report schedule";
      // The shell has no channel of its own: its example names one.
      const example = `/sb report running every weekday at 09:00${ctx.actor.via === "shell" ? " C0123ABCD" : ""}`;
      const text = `${none}. Create one: \`${example}\`.`;
      return { visibility: "ephemeral", text, blocks: [section(text)] };
    }
    const now = reports.now();
    const names = await campaignNames(
      ctx,
      rows.slice(0, MAX_LISTED).map((r) => r.target),
    );
    const blocks: KnownBlock[] = [
      header(`Report schedules (${rows.length})`),
      context(`${capitalize(where)} · times in each schedule's zone`),
    ];
    rows.slice(0, MAX_LISTED).forEach((row, i) => {
      blocks.push({
        ...section(scheduleLine(row, now, !channel, names)),
        accessory: {
          type: "button",
          // Unique within the message; the listener matches `sb_run` and its `:n` suffixes.
          action_id: i === 0 ? ACTION.run : `${ACTION.run}:${i + 1}`,
          text: { type: "plain_text", text: "Delete…" },
          value: `report delete ${row.number}`,
        },
      });
    });
    if (rows.length > MAX_LISTED)
      blocks.push(
        context(`…and ${rows.length - MAX_LISTED} more; delete with \`/sb report delete <number>\`.`),
      );
    return {
      visibility: "ephemeral",
      text: `${rows.length} report schedule${rows.length === 1 ? "" : "s"} ${where}`,
      blocks,
    };
  },
});

const deleteSpec = command({
  words: ["report", "delete"],
  // Named `id` like every command's record (the core's origin and checks read it); its value is the workspace's number.
  positionals: [{ name: "id" }],
  schema: z.object({ id: idArg }),
  access: "write",
  usage: "report delete <number>",
  ...about("Delete a report schedule, by its number in `/sb reports` (asks to confirm)", "report delete 1"),
  noun: "report schedule",
  operations: ["getCampaign"],
  preview: async (a, ctx) => {
    const reports = reportsOf(ctx);
    const row = await reports.getSchedule(a.id);
    if (!row) throw new UserError(`There is no report schedule #${a.id}. \`/sb reports\` lists them.`, false);
    const title = `Delete report schedule #${row.number}?`;
    const names = await campaignNames(ctx, [row.target]);
    return {
      text: `${title} ${blocksToText([section(scheduleLine(row, reports.now(), true, names))])}`,
      blocks: [
        header(title),
        ...fieldsSection([
          ["Reports on", targetName(row.target, names)],
          ["When", esc(row.description)],
          ["Channel", channelRef(row.channel)],
          ["Made by", row.createdBy === "shell" ? "the shell" : `<@${row.createdBy}>`],
        ]),
      ],
      confirm: { text: "Delete schedule", style: "danger" },
    };
  },
  run: async (a, ctx) => {
    const reports = reportsOf(ctx);
    const row = await reports.removeSchedule(a.id);
    if (!row) throw new UserError(`There is no report schedule #${a.id} (already deleted?).`, false);
    const text = `Report schedule #${row.number} (${targetName(row.target, await campaignNames(ctx, [row.target]))}, ${esc(row.description)}) deleted (by ${ctx.who})`;
    return { visibility: "in_channel", text, blocks: [section(`:wastebasket: ${text}`)] };
  },
});

const nowSpec: AnySpec = command({
  words: ["report", "now"],
  positionals: [{ name: "target" }],
  schema: z.object({ target: requiredText(TARGET_HELP) }),
  access: "read",
  usage: "report now <campaign-id | running | all>",
  ...about("Post a campaign report here now", "report now running"),
  help: "Posted in the channel for people who may make changes; anyone else gets it privately.",
  noun: "campaign",
  operations: ["getCampaign", "listCampaigns", "listCampaignRecipients"],
  run: async (a, ctx) => {
    const reports = reportsOf(ctx);
    const t = parseTarget(a.target);
    if ("field" in t) return inputErrorReply(nowSpec, [t]);
    if (t.kind === "inbox")
      return errorReply(
        "The desk report at once is `/sb inbox report` (`day` or `week`): nothing was posted.",
      );
    const missing = await checkCampaign(ctx, a.target);
    if (missing) return missing;
    const tz = await reports.defaultTz(ctx.actor);
    const messages = await reports.build(targetText(t), tz);
    if (!reports.canPost) {
      // The shell: the report is the answer (printed on stdout).
      return {
        visibility: "in_channel",
        text: messages.map((m) => m.text).join("\n"),
        blocks: messages.flatMap((m) => m.blocks),
      };
    }
    // Reading a report is open to all, posting one where everybody sees it is a write.
    if (!(await ctx.may("write"))) {
      const why =
        "Only you can see this report: posting one in the channel is for the people who may make changes.";
      return {
        visibility: "ephemeral",
        text: `${messages.map((m) => m.text).join("\n")}\n${why}`,
        blocks: [...messages.flatMap((m) => m.blocks), context(why)],
      };
    }
    // No channel: a Home tab button; the report goes to the app's DM with the user.
    const channel = ctx.actor.channelId ?? ctx.actor.userId;
    try {
      await reports.post(channel, messages);
    } catch (err) {
      // Anything but a refusal is a bug, or may have posted: the core logs it and answers in general words.
      if (!(err instanceof PostRefusedError)) throw err;
      throw new UserError(
        err.reason === "channel_closed"
          ? "I could not post the report here: I am not in this channel, or it was archived. Invite me with `/invite @Switchboard`, or run it in a channel I am in."
          : "Slack refused the report, so nothing was posted. Try again in a moment; if it happens again, give whoever runs Switchboard the time it happened.",
        false,
      );
    }
    const text = `Report on ${targetLabel(t)} posted${ctx.actor.channelId ? ` in ${channelRef(channel)}` : " in our DM"}${messages.length > 1 ? ` (${messages.length} messages)` : ""}.`;
    return { visibility: "ephemeral", text, blocks: [context(`:white_check_mark: ${text}`)] };
  },
});

export const REPORT_COMMANDS = [scheduleSpec, listSpec, deleteSpec, nowSpec];
