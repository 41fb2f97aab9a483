// `/sb connect`, `/sb disconnect`, `/sb settings` (issue 19 §2, §3): this
// workspace's messaging account and its settings, through the WorkspaceAdmin
// the composition root gives (src/commands/workspace-admin.ts). Only a
// workspace admin or owner, or the person who installed the app, may use
// them; anyone else is told who can.
import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import { context, esc, header, section, truncate } from "../../blocks/blocks.ts";
import { AWAY_MAX } from "../../domain/away.ts";
import { countryWords, optionalTexts } from "../args.ts";
import { errorReply } from "../errors.ts";
import { formReply } from "../forms.ts";
import { channelName, templateChannels } from "../lookups.ts";
import { mention } from "../permissions.ts";
import { type CommandContext, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";
import {
  type ConnectOutcome,
  type DisconnectOutcome,
  type EffectiveSettings,
  notAdministrator,
  personOf,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingOrigin,
  type SettingsInput,
  type WorkspaceAdmin,
} from "../workspace-admin.ts";
import { about, bare, inTopic } from "./shapes.ts";

const command = inTopic("workspace");

/** The admin, when the actor may administer; else a refusal naming who may. */
async function adminFor(ctx: CommandContext, what: string): Promise<WorkspaceAdmin> {
  const admin = ctx.admin;
  if (!admin) throw new UserError("Connecting and settings are not set up in this Switchboard.", false);
  if (!(await admin.mayAdminister(ctx.actor)))
    throw new UserError(await notAdministrator(admin, what), false);
  return admin;
}

const day = (at: Date) =>
  at.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

/** Where a value comes from, in words. */
export function originWords(o: SettingOrigin): string {
  if (o.kind === "environment") return "set by whoever runs Switchboard";
  if (o.kind === "default") return "default";
  // Where it was changed: the shell's changes are not Slack's.
  const where = o.by === "shell" ? "in the shell" : `in Slack by ${personOf(o.by)}`;
  return `changed ${where} on ${day(o.at)}${o.overrides ? " (instead of the value set by whoever runs Switchboard)" : ""}`;
}

/** People and user groups, mentioned; `none` when the list is empty. */
const people = (list: string[], none: string): string => (list.length ? list.map(mention).join(", ") : none);

/** A setting's value in words. */
export function valueWords(
  name: SettingName,
  s: EffectiveSettings,
  channelNames: Record<number, string> = {},
): string {
  switch (name) {
    case "writers":
      return people(s.writers.value, "Everyone in the workspace");
    case "broadcasters":
      return people(s.broadcasters.value, "The same people as who may make changes");
    case "auditChannel":
      return s.auditChannel.value
        ? `<#${s.auditChannel.value}>`
        : "None: changes are kept in Switchboard only";
    case "messagingChannel": {
      const id = s.messagingChannel.value;
      if (!id) return "Not set: the one channel known, else Switchboard asks";
      // Not `#1`, which reads as a Slack channel: its name, else "Channel 1".
      return channelNames[id]
        ? `${esc(channelNames[id])} (channel ${id})`
        : esc(channelName(id, channelNames));
    }
    case "reportsTimeZone":
      return s.reportsTimeZone.value
        ? esc(s.reportsTimeZone.value)
        : "Not set: reports use each person's own Slack time zone";
    case "workflowSteps":
      return { off: "Off", writers: "Only those who may make changes", all: "Everyone" }[
        s.workflowSteps.value
      ];
    case "quietHours":
      return s.quietHours.value
        ? `${esc(s.quietHours.value)}${s.reportsTimeZone.value ? ` (${esc(s.reportsTimeZone.value)})` : ""}: a campaign asked to start then starts when they end`
        : "None: campaigns start when asked";
    case "businessHours":
      return s.businessHours.value
        ? `${esc(s.businessHours.value)} (reply targets count in them)`
        : "Not set: reply targets count around the clock";
    case "approvers":
      return people(s.approvers.value, "Nobody: a campaign is sent without approval");
    case "approveFrom":
      return s.approveFrom.value
        ? `Campaigns reaching ${s.approveFrom.value.toLocaleString("en-US")} people or more`
        : "Every campaign (when someone approves)";
    case "country":
      return s.country.value
        ? esc(countryWords(s.country.value))
        : "Not set: numbers must be written with their + code";
    case "away":
      return s.away.value
        ? `“${esc(truncate(s.away.value.replace(/\s+/g, " "), 150))}” (sent once per conversation to a customer who writes while the team is away)`
        : "None: customers who write while the team is away get no answer";
    case "awayNow":
      return s.awayNow.value
        ? `On since ${esc(new Date(s.awayNow.value).toISOString().slice(0, 16).replace("T", " "))} UTC: the away message goes out at any hour`
        : "Off: the business hours say when the team is away";
  }
}

/** The settings, one line each with where its value comes from. */
export function settingsBlocks(
  s: EffectiveSettings,
  channelNames: Record<number, string> = {},
): KnownBlock[] {
  const lines = SETTING_NAMES.map(
    (n) => `*${SETTINGS[n].label}:* ${valueWords(n, s, channelNames)}\n${italic(originWords(s[n].origin))}`,
  );
  return lines.map(section);
}

function outcomeReply(o: ConnectOutcome | DisconnectOutcome): Reply {
  // Single mode and "nothing to forget" are answers, not failures.
  if (!o.ok && (o.reason === "environment" || o.reason === "not_connected"))
    return {
      visibility: "ephemeral",
      text: o.message,
      blocks: [section(`:information_source: ${o.message}`)],
    };
  if (!o.ok) return errorReply(o.message);
  return { visibility: "ephemeral", text: o.message, blocks: [section(`:white_check_mark: ${o.message}`)] };
}

/** `<@U1>`, `<!subteam^S1>`, `#C1`, or the bare ids: the ids. `everyone`: nobody listed. */
const idsOf = (text: string): string[] =>
  /^(everyone|anyone)$/i.test(text.trim())
    ? []
    : text
        .split(/[\s,]+/)
        .map((t) => t.replace(/^<[@#!](?:subteam\^)?|[|>].*$|^[@#]/g, ""))
        .filter(Boolean);

/** `settings set` options as the admin's input: `none` clears an optional one. */
function settingsInput(a: Record<string, string | undefined>): SettingsInput {
  const out: Record<string, unknown> = {};
  // `none`, or an empty value asked for plainly (`quiet=""`; a bare `quiet=` is refused before this).
  const clear = (v: string) => !v.trim() || /^(none|default|unset)$/i.test(v.trim());
  if (a.writers !== undefined) out.writers = clear(a.writers) ? null : idsOf(a.writers);
  if (a.broadcasters !== undefined) out.broadcasters = clear(a.broadcasters) ? null : idsOf(a.broadcasters);
  if (a.audit !== undefined) out.auditChannel = clear(a.audit) ? null : (idsOf(a.audit)[0] ?? a.audit);
  if (a.channel !== undefined)
    out.messagingChannel = clear(a.channel)
      ? null
      : /^#?\d+$/.test(a.channel.trim())
        ? Number(a.channel.trim().replace("#", ""))
        : a.channel;
  if (a.tz !== undefined) out.reportsTimeZone = clear(a.tz) ? null : a.tz;
  if (a.steps !== undefined) out.workflowSteps = a.steps.trim().toLowerCase();
  if (a.quiet !== undefined) out.quietHours = clear(a.quiet) ? null : a.quiet;
  if (a.hours !== undefined) out.businessHours = clear(a.hours) ? null : a.hours;
  if (a.approvers !== undefined)
    out.approvers = clear(a.approvers) || /^nobody$/i.test(a.approvers.trim()) ? null : idsOf(a.approvers);
  const from = a["approve-from"];
  if (from !== undefined)
    out.approveFrom = clear(from)
      ? null
      : /^\d[\d,]*$/.test(from.trim())
        ? Number(from.trim().replace(/,/g, ""))
        : from;
  if (a.country !== undefined) out.country = clear(a.country) ? null : a.country;
  if (a.away !== undefined) out.away = clear(a.away) ? null : a.away;
  const awayNow = a["away-now"]?.trim().toLowerCase();
  if (awayNow !== undefined)
    out.awayNow = /^(on|yes|true)$/.test(awayNow)
      ? true
      : /^(off|no|false|none)$/.test(awayNow)
        ? false
        : awayNow;
  return out as SettingsInput;
}

export const WORKSPACE_COMMANDS = [
  command({
    words: ["connect"],
    options: { key: "the API key (in Slack the form asks for it, out of sight)" },
    flags: { demo: "a demo account of the embedded sandbox instead of a key" },
    schema: z.object({ key: z.string().optional(), demo: z.boolean().optional() }),
    access: "read",
    usage: "connect [key=<API key>] [demo]",
    ...about("Connect this workspace to its messaging account (admins)", "connect"),
    help: "The key is checked with the messaging API before it is kept, encrypted. In Slack, the form asks for it.",
    operations: ["getMe"],
    run: async (a, ctx) => {
      const admin = await adminFor(ctx, "connect this workspace to a messaging account");
      if (admin.mode === "single") return outcomeReply(await admin.connect(a.key ?? "", ctx.actor));
      if (a.demo) return outcomeReply(await admin.connectDemo(ctx.actor));
      if (a.key !== undefined) return outcomeReply(await admin.connect(a.key, ctx.actor));
      return formReply(
        ctx,
        {
          kind: "connect",
          load: async () => {
            const connection = await admin.connection();
            return { demo: admin.demoAvailable, ...(connection ? { connection } : {}) };
          },
          instead: "connect",
        },
        "Opening the connect form…",
      );
    },
  }),
  command({
    ...bare(["disconnect"]),
    summary: "Forget this workspace's API key (admins; asks for confirmation first)",
    operations: [],
    preview: async (_a, ctx) => {
      const admin = await adminFor(ctx, "disconnect this workspace");
      if (admin.mode === "single") return undefined;
      const c = await admin.connection();
      if (!c) return undefined;
      const text = `Disconnect this workspace from ${c.organization}?`;
      return {
        text,
        blocks: [
          section(`*Disconnect this workspace from ${esc(c.organization)}?*`),
          section(
            "Switchboard forgets the API key. Until an admin connects again, every `/sb` command says how to connect, and this workspace's *report schedules* and *inbox channels* are paused.",
          ),
        ],
        confirm: { text: "Disconnect", style: "danger", dismiss: "Keep it connected" },
      };
    },
    run: async (_a, ctx) => {
      const admin = await adminFor(ctx, "disconnect this workspace");
      return outcomeReply(await admin.disconnect(ctx.actor));
    },
  }),
  command({
    ...bare(["settings"]),
    summary:
      "This workspace's settings: who may make changes, the audit channel, the time zone… (admins change them)",
    operations: [],
    run: async (_a, ctx) => {
      const admin = ctx.admin;
      if (!admin) throw new UserError("Settings are not set up in this Switchboard.", false);
      const names = Object.fromEntries(await ctx.channels.all().catch(() => new Map<number, string>()));
      const mayChange = await admin.mayAdminister(ctx.actor);
      if (mayChange && ctx.actor.via === "slack")
        return formReply(
          ctx,
          {
            kind: "settings",
            load: async () => {
              // The channels Switchboard knows: those people named and those the templates use (the API lists none).
              const used = await templateChannels(ctx.api).catch((): number[] => []);
              const ids = [...new Set([...Object.keys(names).map(Number), ...used])].sort((a, b) => a - b);
              return {
                settings: await admin.settings(),
                channels: ids.map((id) => ({ id, name: channelName(id, names) })),
              };
            },
            instead: "settings.set",
          },
          "Opening the settings…",
        );
      const s = await admin.settings();
      const blocks: KnownBlock[] = [header("Settings of this workspace"), ...settingsBlocks(s, names)];
      blocks.push(
        context(
          mayChange
            ? "Change one with `settings set`, for example `settings set country=ES`; `none` puts back the value set by whoever runs Switchboard, or the default."
            : await notAdministrator(admin, "change them"),
        ),
      );
      const text = SETTING_NAMES.map((n) => `${SETTINGS[n].label}: ${valueWords(n, s, names)}`).join("\n");
      return { visibility: "ephemeral", text, blocks };
    },
  }),
  command({
    words: ["settings", "set"],
    options: {
      writers:
        "who may make changes: people (@mentions or U… ids) and user groups (S… ids), comma separated; `everyone`: anyone; `none`: back to the first value",
      broadcasters: "who may send and cancel campaigns; `everyone`: the same as writers",
      audit: "the audit channel (`#channel` or C… id); `none`: no audit posts",
      channel: "the default messaging channel's number; `none`: not set",
      tz: "the workspace's time zone (Europe/Paris), for reports and quiet hours; `none`: reports use each person's own",
      steps: "Workflow steps: off, writers or all",
      quiet:
        "quiet hours, in the workspace's time zone (21:00-08:00): no campaign starts in them; `none`: no quiet hours",
      hours:
        'business hours reply targets count in, in the workspace\'s time zone: `hours="mon-fri 09:00-18:00"` (several: `mon-fri 09:00-18:00; sat 10:00-14:00`); `none`: around the clock',
      approvers:
        "who approves a campaign before it is sent: people and user groups, comma separated; `none`: no approval",
      "approve-from": "approval only from this many people reached; `none`: every campaign",
      country: "the country of phone numbers written without a + code (ES, US); `none`: not set",
      away: `the away message, sent once per conversation and closed period to a customer who writes outside business hours (needs \`hours=\`, or \`away-now=on\`); placeholders as in saved replies (\`{first_name|there}\`); at most ${AWAY_MAX.toLocaleString("en-US")} characters; \`none\`: no away message`,
      "away-now":
        "`on`: the team is away now whatever the hours say (a holiday, a day off); `off`: the hours decide",
    },
    schema: z.object({
      ...optionalTexts(
        "writers",
        "broadcasters",
        "audit",
        "channel",
        "tz",
        "steps",
        "quiet",
        "hours",
        "approvers",
        "approve-from",
        "country",
        "away",
        "away-now",
      ),
    }),
    access: "read",
    usage:
      "settings set [writers=…] [broadcasters=…] [audit=…] [channel=…] [tz=…] [steps=…] [quiet=…] [hours=…] [approvers=…] [approve-from=…] [country=…] [away=…] [away-now=on|off]",

    ...about("Change this workspace's settings (admins)", "settings set tz=Europe/Paris steps=writers"),
    operations: [],
    run: async (a, ctx) => {
      const admin = await adminFor(ctx, "change the settings");
      const input = settingsInput(a);
      if (!Object.keys(input).length)
        throw new UserError("Say which setting to change, for example `settings set tz=Europe/Paris`.");
      const saved = await admin.saveSettings(input, ctx.actor);
      if (!saved.ok) return errorReply(esc(saved.message));
      const names = Object.fromEntries(await ctx.channels.all().catch(() => new Map<number, string>()));
      const shown = saved.changed.length ? saved.changed : (Object.keys(input) as SettingName[]);
      return {
        visibility: "ephemeral",
        text: saved.message,
        blocks: [
          section(`:white_check_mark: ${esc(saved.message)}`),
          ...settingsBlocks(saved.settings, names).filter((_b, i) => shown.includes(SETTING_NAMES[i]!)),
        ],
      };
    },
  }),
];

/** Slack's italics, unless the text holds an underscore (a setting's name), which would break them. */
function italic(text: string): string {
  return text.includes("_") ? text : `_${text}_`;
}
