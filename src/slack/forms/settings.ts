// `/sb settings` in Slack (admins): who may make changes and who may send
// campaigns (people, and the workspace's user groups by name), the audit
// channel, the default messaging channel (by name), the workspace's time zone,
// Workflow steps, quiet hours, business hours, who approves campaigns, the
// country of numbers without a code. Each field is one
// small block below; its hint says where its value comes from, never a
// setting's name nor a command; a value changed here wins over the one set
// where Switchboard runs. Every value is checked (settingsSchema) before anything is
// saved; a bad one shows under its field.
import type { webApi } from "@slack/bolt";
import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import { getCountries, getCountryCallingCode } from "libphonenumber-js";
import type { FormKinds } from "../../commands/form-kinds.ts";
import type { Actor } from "../../commands/types.ts";
import {
  notAdministrator,
  type SettingName,
  type SettingOrigin,
  type SettingsInput,
  settingsSchema,
} from "../../commands/workspace-admin.ts";
import { groupLabel, workspaceGroups } from "../io/usergroups.ts";
import { errorsFor } from "./field-errors.ts";
import type { FormOutcome, SlackForm, SlackSuggest, Submission } from "./form.ts";
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
  country: "country",
};

const PERSONAL_ZONE = "personal";
const NOT_SET = "none";
const GROUP_ID = /^S[A-Z0-9]{2,}$/;
/** The audit channel's "stop posting there" box. */
const AUDIT_OFF = "off";

/** Where a value comes from, as a field's hint (plain text: no mentions, no setting names, no commands). */
function originHint(o: SettingOrigin, more = ""): string {
  const from =
    o.kind === "environment"
      ? "Set where Switchboard runs."
      : o.kind === "slack"
        ? `Changed in Slack on ${o.at.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" })}${o.overrides ? ", instead of the value set where Switchboard runs" : ""}.`
        : "";
  return [more, from].filter(Boolean).join(" ");
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

const REGION_NAMES = new Intl.DisplayNames(["en"], { type: "region" });

/** Every country of phone numbers by name, in groups of at most 100 (A–…), "Not set" first. */
export function countryGroups(): Array<{ label: ReturnType<typeof plain>; options: PlainTextOption[] }> {
  const all = getCountries()
    .map((code) => ({ code, name: REGION_NAMES.of(code) ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, "en"));
  const groups = [
    {
      label: plain("Not set", VIEW_LIMITS.optionText),
      options: [option("Not set: numbers need their + code", NOT_SET)],
    },
  ];
  for (let i = 0; i < all.length; i += VIEW_LIMITS.options) {
    const part = all.slice(i, i + VIEW_LIMITS.options);
    const from = part[0]!.name[0];
    const to = part.at(-1)!.name[0];
    groups.push({
      label: plain(from === to ? from! : `${from}–${to}`, VIEW_LIMITS.optionText),
      options: part.map((c) => option(`${c.name} (+${getCountryCallingCode(c.code)})`, c.code)),
    });
  }
  return groups;
}

const STEPS = [
  option("Off", "off", "Every step fails, saying they are turned off"),
  option("Only those who may make changes", "writers"),
  option("Everyone", "all"),
];

type SettingsData = FormKinds["settings"];

/** Who may: people (a users select) and, where the workspace has user groups, groups chosen by name. */
type PeopleSetting = "writers" | "broadcasters" | "approvers";

function whoMayFields(
  data: SettingsData,
  name: PeopleSetting,
  label: string,
  empty: string,
  chosen: string,
): KnownBlock[] {
  const value = data.settings[name];
  const people = value.value.filter((id) => !GROUP_ID.test(id));
  const groups = value.value.filter((id) => GROUP_ID.test(id));
  const names = data.groups?.names ?? {};
  const blocks: KnownBlock[] = [
    input(
      name,
      label,
      {
        type: "multi_users_select",
        action_id: name,
        placeholder: plain(empty, VIEW_LIMITS.placeholder),
        ...(people.length ? { initial_users: people } : {}),
      },
      {
        optional: true,
        hint: originHint(
          value.origin,
          value.value.length ? chosen : `Nobody chosen: ${empty.toLowerCase()}.`,
        ),
      },
    ),
  ];
  // A plan without user groups (Slack's plan_upgrade_required): no field for them.
  if (data.groups?.available === false && !groups.length) return blocks;
  blocks.push(
    input(
      `${name}_groups`,
      "…and user groups",
      {
        type: "multi_external_select",
        action_id: `${name}_groups`,
        min_query_length: 0,
        placeholder: plain("Choose user groups", VIEW_LIMITS.placeholder),
        ...(groups.length
          ? {
              initial_options: groups.map((id) =>
                option(names[id] ?? "A user group Slack no longer lists", id),
              ),
            }
          : {}),
      },
      { optional: true, hint: "Everyone in a group chosen here, as the group changes in Slack." },
    ),
  );
  return blocks;
}

/**
 * Who approves campaigns and from how many people (issue 28 §3). Nobody
 * approves their own campaign: a lone approver is warned that their own
 * campaigns would wait.
 */
function approvalFields(data: SettingsData): KnownBlock[] {
  const s = data.settings;
  const approvers = s.approvers.value;
  const lone = approvers.length === 1 && !GROUP_ID.test(approvers[0] ?? "");
  return [
    ...whoMayFields(
      data,
      "approvers",
      "Who approves campaigns",
      "Nobody: campaigns are sent without approval",
      "A campaign is sent only once one of them has approved it; nobody approves their own.",
    ),
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
          "People reached; smaller campaigns are sent without approval. Empty: every campaign.",
        ),
      },
    ),
  ];
}

/** Quiet hours (no campaign starts in them) and business hours (the inbox's reply targets), in the zone above. */
function hoursFields(data: SettingsData): KnownBlock[] {
  const s = data.settings;
  return [
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
      textInput("hours", { initial: s.businessHours.value ?? "", placeholder: "mon-fri 09:00-18:00" }),
      {
        optional: true,
        hint: originHint(
          s.businessHours.origin,
          "The inbox's reply targets count in these hours. Without a time zone above, yours is used. Empty: around the clock.",
        ),
      },
    ),
  ];
}

/** The audit channel, and a box to stop posting there once one is set. */
function auditFields(data: SettingsData): KnownBlock[] {
  const s = data.settings.auditChannel;
  const blocks: KnownBlock[] = [
    input(
      "audit",
      "Audit channel",
      {
        type: "conversations_select",
        action_id: "audit",
        placeholder: plain("No audit channel", VIEW_LIMITS.placeholder),
        filter: { include: ["public", "private"], exclude_bot_users: true },
        ...(s.value ? { initial_conversation: s.value } : {}),
      },
      { optional: true, hint: originHint(s.origin, "Every change is also posted there.") },
    ),
  ];
  if (s.value)
    blocks.push(
      input(
        "audit_off",
        "Stop the audit posts",
        {
          type: "checkboxes",
          action_id: "audit_off",
          options: [option("Post changes in no channel", AUDIT_OFF)],
        },
        { optional: true },
      ),
    );
  return blocks;
}

/** The default messaging channel, by name, from the channels Switchboard knows (the API cannot list them). */
function messagingChannelField(data: SettingsData): KnownBlock {
  const s = data.settings.messagingChannel;
  const hint = originHint(s.origin, "Used when a command or form names no channel.");
  const current = s.value;
  if (!data.channels.length && !current)
    return input(
      "channel",
      "Default messaging channel",
      textInput("channel", { placeholder: "Its number, like 1" }),
      {
        optional: true,
        hint,
      },
    );
  const options = [option("Not set", NOT_SET), ...data.channels.map((c) => option(c.name, String(c.id)))];
  if (current && !data.channels.some((c) => c.id === current))
    options.push(option(`Channel ${current}`, String(current)));
  return input(
    "channel",
    "Default messaging channel",
    staticSelect("channel", options, { initial: current ? String(current) : NOT_SET }),
    { optional: true, hint },
  );
}

/** The country of phone numbers written without their + code. */
function countryField(data: SettingsData): KnownBlock {
  const s = data.settings.country;
  const groups = countryGroups();
  const initial = groups.flatMap((g) => g.options).find((o) => o.value === (s.value ?? NOT_SET));
  return input(
    "country",
    "Country of phone numbers without a code",
    {
      type: "static_select",
      action_id: "country",
      option_groups: groups,
      ...(initial ? { initial_option: initial } : {}),
    },
    {
      optional: true,
      hint: originHint(
        s.origin,
        "A number written without its + code, like 611 222 334, is read in this country.",
      ),
    },
  );
}

export function settingsModal(data: SettingsData, meta: SettingsMeta): ModalView {
  const s = data.settings;
  const tzZone = s.reportsTimeZone.value ?? PERSONAL_ZONE;
  const groupsTz = zoneGroups();
  const tzInitial = groupsTz.flatMap((g) => g.options).find((o) => o.value === tzZone);
  const blocks: KnownBlock[] = [
    sectionText(
      "*Settings of this workspace.* A value changed here wins over the one set where Switchboard runs.",
    ),
    ...whoMayFields(
      data,
      "writers",
      "Who may make changes",
      "Everyone in the workspace",
      "Only the people and groups chosen may make changes.",
    ),
    ...whoMayFields(
      data,
      "broadcasters",
      "Who may send campaigns",
      "The same people as who may make changes",
      "Only the people and groups chosen may send and cancel campaigns.",
    ),
    ...auditFields(data),
    messagingChannelField(data),
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
          "New report schedules run in it; quiet hours and business hours are read in it.",
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
    ...hoursFields(data),
    ...approvalFields(data),
    countryField(data),
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
    const chosen: string[] = (state[`${name}_groups`]?.[`${name}_groups`]?.selected_options ?? []).map(
      (o: { value: string }) => o.value,
    );
    const bad = chosen.filter((t) => !GROUP_ID.test(t));
    if (bad.length) errors[`${name}_groups`] = "Choose user groups from the list.";
    const users: string[] = state[name]?.[name]?.selected_users ?? [];
    return [...users, ...chosen.filter((t) => GROUP_ID.test(t))];
  };
  const out: Record<string, unknown> = { writers: list("writers"), broadcasters: list("broadcasters") };
  const audit = state.audit?.audit?.selected_conversation;
  const auditOff = (state.audit_off?.audit_off?.selected_options ?? []).some(
    (o: { value: string }) => o.value === AUDIT_OFF,
  );
  if (auditOff) out.auditChannel = null;
  else if (typeof audit === "string" && audit) out.auditChannel = audit;
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
  const country = selectedOf(state, "country");
  out.country = !country || country === NOT_SET ? null : country;
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

/** The workspace's user groups by id for the groups fields; none offered where the plan has none. */
async function prepare(
  data: SettingsData,
  p: { client: webApi.WebClient; actor: Actor },
): Promise<SettingsData> {
  try {
    const found = await workspaceGroups(p.client, p.actor.teamId ?? "single");
    return {
      ...data,
      groups: found.available
        ? { available: true, names: Object.fromEntries(found.groups.map((g) => [g.id, groupLabel(g)])) }
        : { available: false, names: {} },
    };
  } catch {
    return data; // Slack could not list them now: the field stays, its menu says so when opened.
  }
}

/** The workspace's user groups matching what the admin types. */
async function groupOptions(s: SlackSuggest): Promise<PlainTextOption[]> {
  const found = await workspaceGroups(s.client, s.actor.teamId ?? "single");
  if (!found.available) return [];
  const q = s.query.trim().toLowerCase().replace(/^@/, "");
  return found.groups
    .filter((g) => !q || g.name.toLowerCase().includes(q) || g.handle.toLowerCase().includes(q))
    .slice(0, VIEW_LIMITS.options)
    .map((g) => option(groupLabel(g), g.id));
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
  prepare,
  slackOptions: {
    writers_groups: groupOptions,
    broadcasters_groups: groupOptions,
    approvers_groups: groupOptions,
  },
  submit: {
    check: ({ state }) => {
      const read = readSettings(state);
      return "errors" in read ? read : { plan: read.input };
    },
    run: save,
  },
};
