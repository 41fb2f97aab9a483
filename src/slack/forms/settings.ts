// `/sb settings` in Slack (admins): who may make changes and who may send
// campaigns (people, and user groups by id), the audit channel, the default
// messaging channel, the workspace's time zone, Workflow steps, quiet hours. Each field says
// where its value comes from; a value changed here wins over the
// environment's. Every value is checked (settingsSchema) before anything is
// saved; a bad one shows under its field.
import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import {
  type EffectiveSettings,
  notAdministrator,
  type SettingName,
  type SettingOrigin,
  type SettingsInput,
  settingsSchema,
} from "../../commands/workspace-admin.ts";
import { errorsFor } from "./field-errors.ts";
import type { FormOutcome, SlackForm, Submission } from "./form.ts";
import {
  context,
  input,
  modal,
  numberOf,
  option,
  plain,
  sectionText,
  selectedOf,
  staticSelect,
  textInput,
  textOf,
  VIEW_LIMITS,
} from "./kit.ts";
import { postLine } from "./submission.ts";

export const SETTINGS_CALLBACK = "sb_settings";

export interface SettingsMeta {
  ch?: string;
}

/** The block that shows a refusal of each setting. */
const BLOCK_OF: Record<SettingName, string> = {
  writers: "writers",
  broadcasters: "broadcasters",
  auditChannel: "audit",
  messagingChannel: "channel",
  reportsTimeZone: "tz",
  workflowSteps: "steps",
  quietHours: "quiet",
  businessHours: "hours",
  approvers: "approvers",
  approveFrom: "approve_from",
};

const PERSONAL_ZONE = "personal";
const NOT_SET = "none";
const GROUP_ID = /^S[A-Z0-9]{2,}$/;

type PeopleSetting = "writers" | "broadcasters" | "approvers";

/**
 * Who approves campaigns and from how many people (issue 28 §3). Nobody
 * approves their own campaign: a lone approver is warned that their own
 * campaigns would wait.
 */
function approvalInputs(
  s: EffectiveSettings,
  usersInput: (name: PeopleSetting, label: string, empty: string) => KnownBlock[],
): KnownBlock[] {
  const approvers = s.approvers.value;
  const lone = approvers.length === 1 && !approvers[0]!.startsWith("S");
  return [
    ...usersInput("approvers", "Who approves campaigns", "Nobody: campaigns are sent without approval"),
    ...(lone
      ? [
          context(
            `:warning: <@${approvers[0]}> is the only approver, and nobody approves their own campaign: the campaigns they ask for would wait. Add a second approver.`,
          ),
        ]
      : []),
    input(
      "approve_from",
      "Ask for approval from",
      {
        type: "number_input",
        action_id: "approve_from",
        is_decimal_allowed: false,
        min_value: "1",
        placeholder: plain("Every campaign", VIEW_LIMITS.placeholder),
        ...(s.approveFrom.value ? { initial_value: String(s.approveFrom.value) } : {}),
      },
      {
        optional: true,
        hint: originHint(
          s.approveFrom.origin,
          "People reached; smaller campaigns are sent without approval. Empty: every campaign. Nobody approves their own campaign.",
        ),
      },
    ),
  ];
}

/** Where a value comes from, as a field's hint (plain text: no mentions there). */
function originHint(o: SettingOrigin, more = ""): string {
  const from =
    o.kind === "environment"
      ? `From the environment (${o.name}).`
      : o.kind === "slack"
        ? `Changed in Slack on ${o.at.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" })}${o.overrides ? `, instead of ${o.overrides}` : ""}.`
        : "Default.";
  return `${more}${more ? " " : ""}${from}`;
}

/** Every zone Intl knows, grouped by region; Slack allows 100 options a group. */
export function zoneGroups(): Array<{ label: ReturnType<typeof plain>; options: PlainTextOption[] }> {
  const byRegion = new Map<string, string[]>();
  for (const z of Intl.supportedValuesOf("timeZone")) {
    const region = z.includes("/") ? z.slice(0, z.indexOf("/")) : "Other";
    byRegion.set(region, [...(byRegion.get(region) ?? []), z]);
  }
  const groups = [
    {
      label: plain("Default", VIEW_LIMITS.optionText),
      options: [option("Each person's own Slack time zone", PERSONAL_ZONE)],
    },
  ];
  for (const [region, zones] of byRegion) {
    for (let i = 0; i < zones.length; i += VIEW_LIMITS.options) {
      const part = zones.slice(i, i + VIEW_LIMITS.options);
      const label = zones.length > VIEW_LIMITS.options ? `${region} (${part[0]!.split("/").pop()}…)` : region;
      groups.push({
        label: plain(label, VIEW_LIMITS.optionText),
        options: part.map((z) => option(z.replace(/_/g, " "), z)),
      });
    }
  }
  return groups;
}

const STEPS = [
  option("Off", "off", "Every step fails, saying they are turned off"),
  option("Only those who may make changes", "writers"),
  option("Everyone", "all"),
];

export function settingsModal(
  data: { settings: EffectiveSettings; channels: Array<{ id: number; name: string }> },
  meta: SettingsMeta,
): ModalView {
  const s = data.settings;
  const people = (ids: string[]) => ids.filter((id) => !id.startsWith("S"));
  const groups = (ids: string[]) => ids.filter((id) => id.startsWith("S")).join(", ");
  const usersInput = (name: PeopleSetting, label: string, empty: string): KnownBlock[] => [
    input(
      name,
      label,
      {
        type: "multi_users_select",
        action_id: name,
        placeholder: plain(empty, VIEW_LIMITS.placeholder),
        ...(people(s[name].value).length ? { initial_users: people(s[name].value) } : {}),
      },
      { optional: true, hint: originHint(s[name].origin, `Nobody chosen: ${empty.toLowerCase()}.`) },
    ),
    input(
      `${name}_groups`,
      "…and user groups",
      textInput(`${name}_groups`, { initial: groups(s[name].value), placeholder: "S0123ABCD, S0456EFGH" }),
      {
        optional: true,
        hint: "User group IDs (S…), comma separated: a group's ID is in its profile, under ⋯.",
      },
    ),
  ];
  const tzZone = s.reportsTimeZone.value ?? PERSONAL_ZONE;
  const groupsTz = zoneGroups();
  const tzInitial = groupsTz.flatMap((g) => g.options).find((o) => o.value === tzZone);
  const channelOptions = [
    option("Not set", NOT_SET),
    ...data.channels.map((c) => option(`${c.name} (#${c.id})`, String(c.id))),
  ];
  const current = s.messagingChannel.value;
  if (current && !data.channels.some((c) => c.id === current))
    channelOptions.push(option(`#${current}`, String(current)));
  const blocks: KnownBlock[] = [
    sectionText(
      "*Settings of this workspace.* A value changed here wins over the one set where Switchboard runs.",
    ),
    ...usersInput("writers", "Who may make changes", "Everyone in the workspace"),
    ...usersInput("broadcasters", "Who may send campaigns", "The same people as who may make changes"),
    input(
      "audit",
      "Audit channel",
      {
        type: "conversations_select",
        action_id: "audit",
        placeholder: plain("No audit channel", VIEW_LIMITS.placeholder),
        filter: { include: ["public", "private"], exclude_bot_users: true },
        ...(s.auditChannel.value ? { initial_conversation: s.auditChannel.value } : {}),
      },
      {
        optional: true,
        hint: originHint(
          s.auditChannel.origin,
          "Every change is also posted there. To stop: /sb settings set audit=none.",
        ),
      },
    ),
    data.channels.length || current
      ? input(
          "channel",
          "Default messaging channel",
          staticSelect("channel", channelOptions, { initial: current ? String(current) : NOT_SET }),
          {
            optional: true,
            hint: originHint(s.messagingChannel.origin, "Used when a command names no channel."),
          },
        )
      : input(
          "channel",
          "Default messaging channel",
          textInput("channel", { placeholder: "Its number, like 1" }),
          {
            optional: true,
            hint: originHint(s.messagingChannel.origin, "Used when a command names no channel."),
          },
        ),
    input(
      "tz",
      "Workspace's time zone",
      {
        type: "static_select",
        action_id: "tz",
        option_groups: groupsTz,
        ...(tzInitial ? { initial_option: tzInitial } : {}),
      },
      {
        optional: true,
        hint: originHint(
          s.reportsTimeZone.origin,
          "New report schedules run in it; quiet hours are read in it.",
        ),
      },
    ),
    input(
      "steps",
      "Workflow steps",
      {
        type: "radio_buttons",
        action_id: "steps",
        options: STEPS,
        initial_option: STEPS.find((o) => o.value === s.workflowSteps.value) ?? STEPS[1],
      },
      {
        hint: originHint(
          s.workflowSteps.origin,
          "Who may run Switchboard's writing steps in Workflow Builder.",
        ),
      },
    ),
    input(
      "quiet",
      "Quiet hours",
      textInput("quiet", { initial: s.quietHours.value ?? "", placeholder: "21:00-08:00" }),
      {
        optional: true,
        hint: originHint(
          s.quietHours.origin,
          "No campaign starts in them: one asked for then starts when they end. Without a time zone above, yours is used.",
        ),
      },
    ),
    input(
      "hours",
      "Business hours",
      textInput("hours", {
        initial: s.businessHours.value ?? "",
        placeholder: "mon-fri 09:00-18:00",
      }),
      {
        optional: true,
        hint: originHint(
          s.businessHours.origin,
          "The inbox's reply targets count in these hours, in the time zone above (which they need). Empty: around the clock.",
        ),
      },
    ),
    ...approvalInputs(s, usersInput),
    context("Only workspace admins and owners, and the person who installed Switchboard, may change these."),
  ];
  return modal({ callbackId: SETTINGS_CALLBACK, title: "Settings", submit: "Save", metadata: meta, blocks });
}

/** The form's values as the admin's input; errors by block for what is not even an id. */
export function readSettings(
  state: Submission<SettingsMeta>["state"],
): { input: SettingsInput } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const list = (name: PeopleSetting) => {
    const typed = (textOf(state, `${name}_groups`) ?? "")
      .split(/[\s,]+/)
      .map((t) => t.replace(/^<!subteam\^|[|>].*$/g, "").trim())
      .filter(Boolean);
    const bad = typed.filter((t) => !GROUP_ID.test(t));
    if (bad.length)
      errors[`${name}_groups`] = `Not a user group ID: ${bad.join(", ")}. An ID starts with S (S0123ABCD).`;
    const users: string[] = state[name]?.[name]?.selected_users ?? [];
    return [...users, ...typed.filter((t) => GROUP_ID.test(t))];
  };
  const out: Record<string, unknown> = { writers: list("writers"), broadcasters: list("broadcasters") };
  const audit = state.audit?.audit?.selected_conversation;
  if (typeof audit === "string" && audit) out.auditChannel = audit;
  const channel = selectedOf(state, "channel") ?? textOf(state, "channel")?.trim();
  if (channel === NOT_SET) out.messagingChannel = null;
  else if (channel) {
    if (/^#?\d+$/.test(channel)) out.messagingChannel = Number(channel.replace("#", ""));
    else errors.channel = "A messaging channel is a number, like 1.";
  } else out.messagingChannel = null;
  const tz = selectedOf(state, "tz");
  out.reportsTimeZone = !tz || tz === PERSONAL_ZONE ? null : tz;
  const steps = selectedOf(state, "steps");
  if (steps) out.workflowSteps = steps;
  const quiet = textOf(state, "quiet")?.trim();
  out.quietHours = quiet ? quiet : null;
  const hours = textOf(state, "hours")?.trim();
  out.businessHours = hours ? hours : null;
  out.approvers = list("approvers");
  const from = (numberOf(state, "approve_from") ?? textOf(state, "approve_from") ?? "").trim();
  if (!from) out.approveFrom = null;
  else if (/^\d[\d,]*$/.test(from)) out.approveFrom = Number(from.replace(/,/g, ""));
  else errors.approve_from = "A number of people, like 500; empty: every campaign.";
  if (Object.keys(errors).length) return { errors };
  const parsed = settingsSchema.safeParse(out);
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      const block = BLOCK_OF[i.path[0] as SettingName] ?? "writers";
      errors[block] = i.message;
    }
    return { errors };
  }
  return { input: out as SettingsInput };
}

async function save(values: SettingsInput, s: Submission<SettingsMeta>): Promise<FormOutcome> {
  const admin = s.ctx.core.admin;
  const refuse = (errors: Record<string, string>): FormOutcome => ({
    answer: { response_action: "errors", errors: errorsFor(errors, s.view) },
  });
  if (!admin) return refuse({ writers: "Settings are not set up in this Switchboard." });
  if (!(await admin.mayAdminister(s.actor)))
    return refuse({
      writers: (await notAdministrator(admin, "change the settings")).replace(/<@([A-Z0-9]+)>/g, "$1"),
    });
  // Quiet and business hours need the workspace's time zone: none chosen, the person's own Slack zone is the one.
  if (
    (values.quietHours || values.businessHours) &&
    !values.reportsTimeZone &&
    !(await admin.settings()).reportsTimeZone.value
  ) {
    const info = await s.client.users.info({ user: s.actor.userId }).catch(() => undefined);
    const tz = typeof info?.user?.tz === "string" ? info.user.tz : undefined;
    if (tz) values = { ...values, reportsTimeZone: tz };
  }
  const saved = await admin.saveSettings(values, s.actor);
  if (!saved.ok) return refuse(Object.fromEntries(saved.problems.map((p) => [BLOCK_OF[p.field], p.message])));
  return {
    after: () => postLine(s, "white_check_mark", `Settings of this workspace: ${saved.message}`),
    answer: {
      response_action: "update",
      view: modal({
        callbackId: "sb_settings_saved",
        title: "Settings",
        close: "Done",
        blocks: [sectionText(`:white_check_mark: ${saved.message}`)],
      }),
    } as FormOutcome["answer"],
  };
}

export const settingsForm: SlackForm<"settings", SettingsMeta, SettingsInput> = {
  name: "settings form",
  kind: "settings",
  callbackId: SETTINGS_CALLBACK,
  build: (data, { actor }) => settingsModal(data, { ch: actor.channelId }),
  submit: {
    check: ({ state }) => {
      const read = readSettings(state);
      return "errors" in read ? read : { plan: read.input };
    },
    run: save,
  },
};
