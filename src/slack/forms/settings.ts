// `/sb settings` in Slack (admins): who may make changes and who may send
// campaigns (people, and the workspace's user groups by name), the audit
// channel, the default messaging channel (by name), the workspace's time zone,
// Workflow steps, quiet hours, business hours, who approves campaigns, the
// country of numbers without a code. Each field is one
// small block below; its hint says where its value comes from, never a
// setting's name nor a command; a value changed here wins over the one set
// where Switchboard runs. Every value is checked (settingsSchema) before anything is
// saved; a bad one shows under its field.
import { createHash } from "node:crypto";
import type { webApi } from "@slack/bolt";
import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import type { Actor } from "../../commands/types.ts";
import {
  notAdministrator,
  SETTING_NAMES,
  type SettingName,
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
  sectionText,
  selectedOf,
  textOf,
  VIEW_LIMITS,
} from "./kit.ts";
import {
  AUDIT_OFF,
  approvalFields,
  auditFields,
  countryField,
  GROUP_ID,
  hoursFields,
  messagingChannelField,
  NOT_SET,
  originHint,
  PERSONAL_ZONE,
  type PeopleSetting,
  type SettingsData,
  STEPS,
  whoMayFields,
  zoneField,
  zoneOptions,
} from "./settings-fields.ts";
import { postLine } from "./submission.ts";

export const SETTINGS_CALLBACK = "sb_settings";

export interface SettingsMeta {
  ch?: string;
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
};

export function settingsModal(data: SettingsData, meta: SettingsMeta): ModalView {
  const s = data.settings;
  const blocks: KnownBlock[] = [
    sectionText(
      "*Settings of this workspace.* A value changed here wins over the one set by whoever runs Switchboard for your team.",
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
    zoneField(data),
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
  const shown = Object.fromEntries(
    SETTING_NAMES.map((name) => [name, fingerprint(name, s[name].value)]),
  ) as SettingsMeta["shown"];
  return modal({
    callbackId: SETTINGS_CALLBACK,
    title: "Settings",
    submit: "Save",
    metadata: { ...meta, ...(s.reportsTimeZone.value ? { tz: s.reportsTimeZone.value } : {}), shown },
    blocks,
  });
}

/** A value as a short fingerprint: lists in any order, unset and empty alike. */
function fingerprint(name: SettingName, value: unknown): string {
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
    ...(saved.changed.length
      ? { after: () => postLine(s, "white_check_mark", `Settings of this workspace: ${saved.message}`) }
      : {}),
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
