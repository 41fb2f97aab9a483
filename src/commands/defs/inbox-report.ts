// `/sb inbox report [day|week] [#channel]` (issue 29 §5): the desk's report
// at once, from what Switchboard recorded (src/reports/desk.ts), no API read;
// a schedule posts it with `/sb report inbox every mon at 09:00`. Also how
// `/sb inbox` says what is due.
import { z } from "zod";
import { count, esc } from "../../blocks/blocks.ts";
import { deskFigures, renderDeskReport } from "../../reports/desk.ts";
import type { ThreadDue } from "../../store/inbox.ts";
import { type AnySpec, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";
import { about, inTopic } from "./shapes.ts";

const command = inTopic("inbox");

const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;

/** "reply due in 12 min", "reply overdue by 5 min" (`/sb inbox`: read once, so a countdown is fine there). */
export function dueWords(due: ThreadDue, now: Date): string {
  const mins = Math.round((due.at.getTime() - now.getTime()) / 60_000);
  const span = (m: number) =>
    m < 60
      ? count(Math.max(m, 0), "min", "min")
      : m < 1440
        ? `${Math.round(m / 60)} h`
        : `${Math.round(m / 1440)} d`;
  if (due.missed || mins < 0) return `:rotating_light: reply overdue by ${span(-mins)}`;
  return `:alarm_clock: reply due in ${span(mins)}`;
}

const PERIODS = { day: 86_400_000, week: 7 * 86_400_000 } as const;

const reportSpec: AnySpec = command({
  words: ["inbox", "report"],
  positionals: [
    { name: "period", optional: true },
    { name: "channel", optional: true },
  ],
  schema: z.object({ period: z.string().optional(), channel: z.string().optional() }),
  access: "read",
  usage: "inbox report [day|week] [#channel]",
  ...about(
    "The desk's report now: opened, resolved, first-reply times, targets met, snoozed, ratings, per assignee",
    "inbox report week",
  ),
  help: "Over the last day (default) or week, from what Switchboard recorded (no API reads): conversations opened and resolved, median and 90th-percentile first-reply time, reply targets met as a share, conversations snoozed, customers' ratings per answer, and the same per assignee. Of this channel's inbox, or the one named; in a channel without an inbox, every inbox. `/sb report inbox every mon at 09:00` posts it on a schedule.",
  operations: [],
  run: async (a, ctx): Promise<Reply> => {
    if (!ctx.inbox) throw new UserError("The inbox is not set up in this Switchboard.", false);
    // `#channel day` or `day #channel`: either order.
    const words = [a.period, a.channel].filter((w): w is string => w !== undefined);
    const periodWord = words.find((w) => /^(day|daily|week|weekly|today)$/i.test(w));
    const channelWord = words.find((w) => w !== periodWord);
    const period = /^week/i.test(periodWord ?? "") ? "week" : "day";
    let channel: string | null = null;
    if (channelWord !== undefined) {
      const raw = channelWord.replace(/^<#|\|.*$|>$/g, "").replace(/^#/, "");
      if (!CHANNEL_ID.test(raw))
        throw new UserError(
          `\`${esc(channelWord)}\` is neither a period (\`day\` or \`week\`) nor a channel: type # and pick the inbox's channel.`,
        );
      if (!(await ctx.inbox.store.inbox(raw)))
        throw new UserError(`There is no inbox in <#${raw}>: \`/sb inbox\` lists the inboxes.`);
      channel = raw;
    } else if (ctx.actor.channelId && (await ctx.inbox.store.inbox(ctx.actor.channelId))) {
      channel = ctx.actor.channelId;
    }
    const now = new Date();
    const from = new Date(now.getTime() - PERIODS[period]);
    const figures = await deskFigures(ctx.inbox.store.clocks, channel, from, now, now);
    const tz = ctx.reports ? await ctx.reports.defaultTz(ctx.actor) : "UTC";
    const m = renderDeskReport(figures, { tz });
    return { visibility: "ephemeral", text: m.text, blocks: m.blocks };
  },
});

export const INBOX_REPORT_COMMANDS: AnySpec[] = [reportSpec];
