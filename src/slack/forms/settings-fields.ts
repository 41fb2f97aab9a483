// The settings form's fields (src/slack/forms/settings.ts), one small builder
// each: who may (people, and user groups chosen by name), Workflow steps, the
// audit channel, the default messaging channel by name, quiet and business
// hours, who approves, the country. Each hint says where its value comes from, never a
// setting's name nor a command.
import type { KnownBlock, PlainTextOption } from "@slack/types";
import { getCountries, getCountryCallingCode } from "libphonenumber-js";
import type { FormKinds } from "../../commands/form-kinds.ts";
import type { SettingOrigin } from "../../commands/workspace-admin.ts";
import { AWAY_MAX } from "../../domain/away.ts";
import { searchZones, zoneLabel } from "../../domain/time-zones.ts";
import { context, input, option, plain, staticSelect, textInput, VIEW_LIMITS } from "./kit.ts";

export const PERSONAL_ZONE = "personal";
export const NOT_SET = "none";
export const GROUP_ID = /^S[A-Z0-9]{2,}$/;
/** The audit channel's "stop posting there" box. */
export const AUDIT_OFF = "off";

/** Where a value comes from, as a field's hint (plain text: no mentions, no setting names, no commands). */
export function originHint(o: SettingOrigin, more = ""): string {
  const from =
    o.kind === "environment"
      ? "Set by whoever runs Switchboard for your team; a value saved here replaces theirs."
      : o.kind === "slack"
        ? `Changed ${o.by === "shell" ? "in the shell" : "in Slack"} on ${o.at.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" })}${o.overrides ? ", instead of the value set by whoever runs Switchboard" : ""}.`
        : "";
  return [more, from].filter(Boolean).join(" ");
}

/** The workspace's zone: searched over every IANA zone, the saved one shown as it is saved. */
export function zoneField(data: SettingsData): KnownBlock {
  const s = data.settings.reportsTimeZone;
  return input(
    "tz",
    "Workspace's time zone",
    {
      type: "external_select",
      action_id: "tz",
      min_query_length: 0,
      placeholder: plain("Type a city, like Madrid", VIEW_LIMITS.placeholder),
      initial_option: s.value ? option(zoneLabel(s.value), s.value) : PERSONAL_OPTION,
    },
    {
      optional: true,
      hint: originHint(
        s.origin,
        "New report schedules run in it; quiet hours and business hours are read in it.",
      ),
    },
  );
}

const PERSONAL_OPTION = option("Each person's own Slack time zone", PERSONAL_ZONE);

/**
 * The zones matching what the admin types, each person's own zone first
 * when nothing is typed; `saved` (the value the form was opened with) is
 * offered even where the list does not hold it.
 */
export function zoneOptions(query: string, saved?: string): PlainTextOption[] {
  const q = query.trim();
  const personal = !q || /^(each|own|person|personal|slack|default|none)/i.test(q);
  const zones = q
    ? searchZones(q, VIEW_LIMITS.options - 1, saved)
    : ["UTC", ...(saved && saved !== "UTC" ? [saved] : [])];
  return [...(personal ? [PERSONAL_OPTION] : []), ...zones.map((z) => option(zoneLabel(z), z))];
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

export const STEPS = [
  option("Off", "off", "Every step fails, saying they are turned off"),
  option("Only those who may make changes", "writers"),
  option("Everyone", "all"),
];

export type SettingsData = FormKinds["settings"];

/** Who may: people (a users select) and, where the workspace has user groups, groups chosen by name. */
export type PeopleSetting = "writers" | "broadcasters" | "approvers";

export function whoMayFields(
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
export function approvalFields(data: SettingsData): KnownBlock[] {
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

/** An hours field (quiet or business hours): typed, with its placeholder and what it does. */
function hoursField(
  data: SettingsData,
  name: "quietHours" | "businessHours",
  f: { block: string; label: string; placeholder: string; does: string },
): KnownBlock {
  const s = data.settings[name];
  return input(f.block, f.label, textInput(f.block, { initial: s.value ?? "", placeholder: f.placeholder }), {
    optional: true,
    hint: originHint(s.origin, f.does),
  });
}

/** Quiet hours: no campaign starts in them; read in the workspace's zone. */
export const quietField = (data: SettingsData): KnownBlock =>
  hoursField(data, "quietHours", {
    block: "quiet",
    label: "Quiet hours",
    placeholder: "21:00-08:00",
    does: "No campaign starts in them: one asked for then starts when they end. Read in the time zone above; without one, yours is used.",
  });

/** Business hours: the inbox's reply targets count in them, in the workspace's zone. */
export const businessHoursField = (data: SettingsData): KnownBlock =>
  hoursField(data, "businessHours", {
    block: "hours",
    label: "Business hours",
    placeholder: "mon-fri 09:00-18:00",
    does: "The inbox's reply targets count in these hours, read in the workspace's time zone (under Times; without one, yours is used). Empty: around the clock.",
  });

/** The away message's "away now" box: on, it goes out at any hour. */
export const AWAY_NOW = "on";

/**
 * The away message (issue 40 §1): its text, several lines, at most AWAY_MAX
 * characters, and "away now" (a holiday, a day off: whatever the hours say).
 */
export function awayFields(data: SettingsData): KnownBlock[] {
  const s = data.settings;
  const now = option("The team is away now: send it at any hour", AWAY_NOW, "A holiday, a day off");
  return [
    input(
      "away",
      "Away message",
      textInput("away", {
        initial: s.away.value ?? "",
        placeholder: "Thanks for writing! We answer Mon–Fri 9–18.",
        multiline: true,
        max: AWAY_MAX,
      }),
      {
        optional: true,
        hint: originHint(
          s.away.origin,
          `Sent once per conversation to a customer who writes outside the business hours, in conversations an inbox follows. {first_name|there} is filled from their record. At most ${AWAY_MAX.toLocaleString("en-US")} characters. Empty: none.`,
        ),
      },
    ),
    input(
      "away_now",
      "Away now",
      {
        type: "checkboxes",
        action_id: "away_now",
        options: [now],
        ...(s.awayNow.value ? { initial_options: [now] } : {}),
      },
      { optional: true, hint: originHint(s.awayNow.origin, "Untick it when the team is back.") },
    ),
  ];
}

/** Who may run Switchboard's writing steps in Workflow Builder. */
export function stepsField(data: SettingsData): KnownBlock {
  const s = data.settings.workflowSteps;
  return input(
    "steps",
    "Workflow steps",
    {
      type: "radio_buttons",
      action_id: "steps",
      options: STEPS,
      initial_option: STEPS.find((o) => o.value === s.value) ?? STEPS[1],
    },
    { hint: originHint(s.origin, "Who may run Switchboard's writing steps in Workflow Builder.") },
  );
}

/** The audit channel, and a box to stop posting there once one is set. */
export function auditFields(data: SettingsData): KnownBlock[] {
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
export function messagingChannelField(data: SettingsData): KnownBlock {
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
export function countryField(data: SettingsData): KnownBlock {
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
