// `/sb settings` in Slack (admins). The first view lists the groups (People,
// Channels, Times, Campaigns, Inbox), each with its values in words and a
// button that opens it as its own short form (views.update, with a way back):
// who may make changes, send campaigns and run Workflow steps (people, and
// the workspace's user groups by name); the audit channel, the default
// messaging channel (by name), the country of numbers without a code; the
// workspace's time zone and quiet hours; who approves campaigns; business
// hours. Each field is one small block (settings-fields.ts); its hint says
// where its value comes from, never a setting's name nor a command; a value
// changed here wins over the one set where Switchboard runs. A group's Save
// writes only the fields changed in it, each checked (settingsSchema) first;
// a bad one shows under its field. Saved, the form shows the list again.
import { createHash } from "node:crypto";
import type { webApi } from "@slack/bolt";
import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import { esc } from "../../blocks/blocks.ts";
import { valueWords } from "../../commands/defs/workspace.ts";
import { mention } from "../../commands/permissions.ts";
import type { Actor } from "../../commands/types.ts";
import {
  notAdministrator,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingsInput,
  settingsSchema,
} from "../../commands/workspace-admin.ts";
import type { Reach } from "../context.ts";
import { groupLabel, workspaceGroups } from "../io/usergroups.ts";
import { errorsFor } from "./field-errors.ts";
import {
  askedIn,
  type FormOutcome,
  type Refresh,
  type SlackForm,
  type SlackSuggest,
  type Submission,
} from "./form.ts";
import {
  checkedOf,
  context,
  modal,
  mrkdwn,
  numberOf,
  option,
  plain,
  sectionText,
  selectedOf,
  textOf,
  VIEW_LIMITS,
} from "./kit.ts";
import {
  AUDIT_OFF,
  AWAY_NOW,
  approvalFields,
  auditFields,
  awayFields,
  businessHoursField,
  countryField,
  GROUP_ID,
  messagingChannelField,
  NOT_SET,
  PERSONAL_ZONE,
  type PeopleSetting,
  quietField,
  type SettingsData,
  stepsField,
  whoMayFields,
  zoneField,
  zoneOptions,
} from "./settings-fields.ts";
import { postLine } from "./submission.ts";

export const SETTINGS_CALLBACK = "sb_settings";

export interface SettingsMeta {
  ch?: string;
  /** The group the view shows; none: the list of groups. */
  group?: SettingsGroup;
  /** Whether the workspace has user groups, and the names of the saved ones (a group's view is built without Slack's client). */
  groups?: { available: boolean; names: Record<string, string> };
  /** The zone the form was opened with (offered in the zone's menu even where the list lacks it). */
  tz?: string;
  /** A fingerprint of each value as the form showed it: a field left as it was is not saved. */
  shown?: Partial<Record<SettingName, string>>;
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
  away: "away",
  awayNow: "away_now",
};

/** The groups of settings, each opened from the first view as its own short form. */
export const SETTINGS_GROUPS = ["people", "channels", "times", "campaigns", "inbox"] as const;
export type SettingsGroup = (typeof SETTINGS_GROUPS)[number];

interface GroupSpec {
  title: string;
  /** What it holds, under its name in the first view. */
  about: string;
  names: SettingName[];
  fields(data: SettingsData): KnownBlock[];
}

/** Which settings each group holds, and its fields. */
const GROUPS: Record<SettingsGroup, GroupSpec> = {
  people: {
    title: "People",
    about: "Who may make changes, send campaigns and run Workflow steps.",
    names: ["writers", "broadcasters", "workflowSteps"],
    fields: (data) => [
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
      stepsField(data),
    ],
  },
  channels: {
    title: "Channels",
    about: "Where changes are posted, the messaging channel used by default, and how phone numbers are read.",
    names: ["auditChannel", "messagingChannel", "country"],
    fields: (data) => [...auditFields(data), messagingChannelField(data), countryField(data)],
  },
  times: {
    title: "Times",
    about: "The workspace's time zone, and the quiet hours in which no campaign starts.",
    names: ["reportsTimeZone", "quietHours"],
    fields: (data) => [zoneField(data), quietField(data)],
  },
  campaigns: {
    title: "Campaigns",
    about: "Who approves campaigns, and from how many people.",
    names: ["approvers", "approveFrom"],
    fields: approvalFields,
  },
  inbox: {
    title: "Inbox",
    about:
      "The business hours in which reply targets count, and the away message customers get when they write outside them.",
    names: ["businessHours", "away", "awayNow"],
    fields: (data) => [businessHoursField(data), ...awayFields(data)],
  },
};

const WHO_MAY =
  "Only workspace admins and owners, and the person who installed Switchboard, may change these.";

/** The group buttons' action ids (one each: a view's action ids are unique) and the back button's. */
export const OPEN_GROUP = "settings_group";
export const ALL_SETTINGS = "settings_all";

/** The metadata every view of the form carries: its channel, the saved zone, the groups' names. */
function baseMeta(data: SettingsData, meta: SettingsMeta): SettingsMeta {
  const s = data.settings;
  const saved = [...s.writers.value, ...s.broadcasters.value, ...s.approvers.value].filter((id) =>
    GROUP_ID.test(id),
  );
  const names = data.groups?.names ?? meta.groups?.names ?? {};
  return {
    ...(meta.ch ? { ch: meta.ch } : {}),
    ...(s.reportsTimeZone.value ? { tz: s.reportsTimeZone.value } : {}),
    groups: {
      available: data.groups?.available ?? meta.groups?.available ?? true,
      names: Object.fromEntries(saved.filter((id) => names[id]).map((id) => [id, names[id]!])),
    },
  };
}

/**
 * The first view: each group by name with what it holds now, in words, and a
 * button that opens it; `said`: the outcome of the group just saved.
 */
export function settingsOverview(data: SettingsData, meta: SettingsMeta, said?: string): ModalView {
  const s = data.settings;
  const names = Object.fromEntries(data.channels.map((c) => [c.id, c.name]));
  // People as mentions, user groups by their names where Slack listed them.
  const groupNames = data.groups?.names ?? meta.groups?.names ?? {};
  const people = (ids: string[]) =>
    ids.map((id) => (GROUP_ID.test(id) && groupNames[id] ? esc(groupNames[id]) : mention(id))).join(", ");
  const words = (n: SettingName) =>
    (n === "writers" || n === "broadcasters" || n === "approvers") && s[n].value.length
      ? people(s[n].value)
      : valueWords(n, s, names);
  const blocks: KnownBlock[] = [
    ...(said ? [sectionText(`:white_check_mark: ${said}`, "settings_saved")] : []),
    sectionText("*Settings of this workspace.* Open a group to change it."),
  ];
  for (const group of SETTINGS_GROUPS) {
    const g = GROUPS[group];
    const lines = g.names.map((n) => `${SETTINGS[n].label}: ${words(n)}`);
    blocks.push({ type: "divider" }, {
      type: "section",
      block_id: `settings_${group}`,
      text: mrkdwn(`*${g.title}*\n${lines.join("\n")}`),
      accessory: {
        type: "button",
        action_id: `${OPEN_GROUP}_${group}`,
        value: group,
        text: plain("Change", VIEW_LIMITS.button),
        accessibility_label: `Change ${g.title.toLowerCase()}`,
      },
    } as KnownBlock);
  }
  blocks.push(context(WHO_MAY));
  return modal({
    callbackId: SETTINGS_CALLBACK,
    title: "Settings",
    close: "Done",
    metadata: baseMeta(data, meta),
    blocks,
  });
}

/** One group's short form: its fields with every saved value, and a way back to the list. */
export function settingsGroupModal(data: SettingsData, group: SettingsGroup, meta: SettingsMeta): ModalView {
  const s = data.settings;
  const g = GROUPS[group];
  const shown = Object.fromEntries(
    g.names.map((name) => [name, fingerprint(name, s[name].value)]),
  ) as SettingsMeta["shown"];
  return modal({
    callbackId: SETTINGS_CALLBACK,
    title: `Settings: ${g.title}`,
    submit: "Save",
    close: "Cancel",
    metadata: { ...baseMeta(data, meta), group, shown },
    blocks: [
      {
        type: "actions",
        block_id: "settings_nav",
        elements: [{ type: "button", action_id: ALL_SETTINGS, value: "all", text: plain("← All settings") }],
      } as KnownBlock,
      context(g.about),
      ...g.fields(data),
      context(WHO_MAY),
    ],
  });
}

/** The form as first opened: the list of groups. */
export const settingsModal = settingsOverview;

/** A value as a short fingerprint: lists in any order, unset and empty alike. */
function fingerprint(name: SettingName, given: unknown): string {
  // Away now is kept as when it was turned on, and read from its box as on or off.
  const value = name === "awayNow" ? Boolean(given) : given;
  const plain =
    Array.isArray(value) && value.length
      ? [...new Set(value.map(String))].sort()
      : value === undefined || value === "" || (Array.isArray(value) && !value.length)
        ? null
        : typeof value === "string"
          ? value.trim()
          : value;
  return createHash("sha256")
    .update(`${name}\0${JSON.stringify(plain)}`)
    .digest("base64url")
    .slice(0, 10);
}

/**
 * The form's values as the admin's input, only those changed from what the
 * form showed (`shown`); errors by block for what is not even an id.
 */
export function readSettings(
  state: Submission<SettingsMeta>["state"],
  shown: SettingsMeta["shown"] = {},
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
  // Only the fields of the view submitted (one group): a setting of another group is not touched.
  const has = (block: string) => block in state;
  const out: Record<string, unknown> = {};
  if (has("writers")) out.writers = list("writers");
  if (has("broadcasters")) out.broadcasters = list("broadcasters");
  if (has("audit")) {
    const audit = state.audit?.audit?.selected_conversation;
    const auditOff = (state.audit_off?.audit_off?.selected_options ?? []).some(
      (o: { value: string }) => o.value === AUDIT_OFF,
    );
    if (auditOff) out.auditChannel = null;
    else if (typeof audit === "string" && audit) out.auditChannel = audit;
  }
  if (has("channel")) {
    const channel = selectedOf(state, "channel") ?? textOf(state, "channel")?.trim();
    if (channel === NOT_SET) out.messagingChannel = null;
    else if (channel) {
      if (/^#?\d+$/.test(channel)) out.messagingChannel = Number(channel.replace("#", ""));
      else errors.channel = "A messaging channel is a number, like 1.";
    } else out.messagingChannel = null;
  }
  if (has("tz")) {
    const tz = selectedOf(state, "tz");
    out.reportsTimeZone = !tz || tz === PERSONAL_ZONE ? null : tz;
  }
  const steps = selectedOf(state, "steps");
  if (steps) out.workflowSteps = steps;
  if (has("quiet")) out.quietHours = textOf(state, "quiet")?.trim() || null;
  if (has("hours")) out.businessHours = textOf(state, "hours")?.trim() || null;
  if (has("away")) out.away = textOf(state, "away")?.trim() || null;
  if (has("away_now")) out.awayNow = checkedOf(state, "away_now").includes(AWAY_NOW);
  if (has("approvers")) out.approvers = list("approvers");
  if (has("approve_from")) {
    const from = (numberOf(state, "approve_from") ?? textOf(state, "approve_from") ?? "").trim();
    if (!from) out.approveFrom = null;
    else if (/^\d[\d,]*$/.test(from)) out.approveFrom = Number(from.replace(/,/g, ""));
    else errors.approve_from = "A number of people, like 500; empty: every campaign.";
  }
  if (has("country")) {
    const country = selectedOf(state, "country");
    out.country = !country || country === NOT_SET ? null : country;
  }
  for (const name of SETTING_NAMES)
    if (name in out && shown[name] !== undefined && shown[name] === fingerprint(name, out[name]))
      delete out[name];
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
    const found = await workspaceGroups(p.client);
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
  const found = await workspaceGroups(s.client);
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
  // Saved: the list of groups again, with the values as they are now, to change another or close.
  const fresh = await freshData(s.ctx, s.actor, s.meta);
  const data = fresh.data ? await prepare(fresh.data, { client: s.client, actor: s.actor }) : undefined;
  return {
    ...(saved.changed.length
      ? { after: () => postLine(s, "white_check_mark", `Settings of this workspace: ${saved.message}`) }
      : {}),
    answer: {
      response_action: "update",
      view: data
        ? settingsOverview(data, s.meta, saved.message)
        : modal({
            callbackId: "sb_settings_saved",
            title: "Settings",
            close: "Done",
            blocks: [sectionText(`:white_check_mark: ${saved.message}`)],
          }),
    } as FormOutcome["answer"],
  };
}

/**
 * The settings as they are now, read as `/sb settings` reads them (the
 * channels Switchboard knows with them), the groups' names the view carried;
 * else what the core answered instead (the person may no longer change them).
 */
async function freshData(
  ctx: Reach,
  actor: Actor,
  meta: Partial<SettingsMeta>,
): Promise<{ data?: SettingsData; text?: string }> {
  const reply = await ctx.core.run("settings", actor);
  if (reply.form?.kind !== "settings") return { text: reply.text };
  return { data: { ...(reply.form.data as SettingsData), ...(meta.groups ? { groups: meta.groups } : {}) } };
}

/** A group's button opens its form; "All settings" goes back to the list. Both read the settings afresh. */
async function moved(r: Refresh<SettingsMeta>): Promise<ModalView | undefined> {
  const fresh = await freshData(r.ctx, r.actor, r.meta);
  if (!fresh.data)
    return modal({
      callbackId: "sb_settings_saved",
      title: "Settings",
      close: "Close",
      blocks: [sectionText(fresh.text ?? "The settings could not be read now: try again in a minute.")],
    });
  const group = SETTINGS_GROUPS.find((g) => g === r.action.value);
  return r.action.action_id.startsWith(OPEN_GROUP) && group
    ? settingsGroupModal(fresh.data, group, r.meta)
    : settingsOverview(fresh.data, r.meta);
}

export const settingsForm: SlackForm<"settings", SettingsMeta, SettingsInput> = {
  ...askedIn("settings", SETTINGS_CALLBACK, settingsModal),
  name: "settings form",
  prepare,
  refresh: { actions: [...SETTINGS_GROUPS.map((g) => `${OPEN_GROUP}_${g}`), ALL_SETTINGS], view: moved },
  slackOptions: {
    writers_groups: groupOptions,
    broadcasters_groups: groupOptions,
    approvers_groups: groupOptions,
    tz: async (q) => zoneOptions(q.query, typeof q.meta?.tz === "string" ? q.meta.tz : undefined),
  },
  submit: {
    check: ({ state, meta }) => {
      const read = readSettings(state, meta.shown);
      return "errors" in read ? read : { plan: read.input };
    },
    run: save,
  },
};
