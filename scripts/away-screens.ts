// `node --import tsx scripts/away-screens.ts [dir]`: the screens of the away
// message (issue 40 §1): an inbox thread where a customer wrote after closing
// time and got it (shown as Switchboard's), the settings form's Inbox group
// with the away message and "away now", and the inbox form with its Away
// message box — drawn by the functions the app draws them with, written as
// Block Kit JSON and, when the blockkit-preview renderer and Chromium are
// there, as PNG. Default folder: docs/screens.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { EffectiveSettings, SettingOrigin } from "../src/commands/workspace-admin.ts";
import { messageReplies } from "../src/slack/features/inbox/render.ts";
import { inboxModal } from "../src/slack/forms/inbox.ts";
import { settingsGroupModal } from "../src/slack/forms/settings.ts";

const out = resolve(process.argv[2] ?? "docs/screens");
const renderer = process.env.BLOCKKIT_PREVIEW ?? "/work/shared/tools/blockkit-preview/render.mjs";
mkdirSync(out, { recursive: true });

const name = "Lucía Romero";
const away =
  "Hi {first_name|there}, thanks for writing! We answer Mon–Fri 9–18, and we will be back with you first thing tomorrow.";
const thread = [
  ...messageReplies(name, {
    direction: "inbound",
    at: new Date("2026-12-04T19:42:00Z"),
    text: "Hola! Is my order A-7 leaving today?",
  }),
  ...messageReplies(name, {
    direction: "outbound",
    at: new Date("2026-12-04T19:42:09Z"),
    text: away.replace("{first_name|there}", "Lucía"),
    sentBy: { userId: "switchboard", via: "away" },
  }),
];

const changed: SettingOrigin = { kind: "slack", by: "U0ANA", at: new Date("2026-11-29T09:00:00Z") };
const none: SettingOrigin = { kind: "default" };
const settings = {
  writers: { value: [], origin: none },
  broadcasters: { value: [], origin: none },
  auditChannel: { value: undefined, origin: none },
  messagingChannel: { value: undefined, origin: none },
  reportsTimeZone: { value: "Europe/Madrid", origin: changed },
  workflowSteps: { value: "writers", origin: none },
  quietHours: { value: undefined, origin: none },
  businessHours: { value: "mon-fri 09:00-18:00", origin: changed },
  approvers: { value: [], origin: none },
  approveFrom: { value: undefined, origin: none },
  country: { value: undefined, origin: none },
  away: { value: away, origin: changed },
  awayNow: { value: undefined, origin: none },
} as EffectiveSettings;

const screens: Record<string, object> = {
  "away-thread": thread,
  "away-settings-inbox": settingsGroupModal({ settings, channels: [] }, "inbox", { ch: "C0SUPPORT" }),
  "away-inbox-form": inboxModal(
    {
      channel: "C0SUPPORT",
      current: {
        needHuman: false,
        types: [],
        replies: "send",
        firstSecs: 900,
        nextSecs: 3600,
        here: false,
        away: true,
      },
      chatTypes: [
        { value: "phonechat", label: "Phone chat" },
        { value: "chat_web", label: "Web chat" },
      ],
      hours: "mon-fri 09:00-18:00 (Europe/Madrid)",
      awayMessage: true,
    },
    { ch: "C0SUPPORT" },
  ),
};

for (const [screen, message] of Object.entries(screens)) {
  const json = join(out, `${screen}.json`);
  writeFileSync(json, `${JSON.stringify(message, null, 2)}\n`);
  if (existsSync(renderer))
    execFileSync(
      "node",
      [renderer, json, join(out, `${screen}.png`), "--app-name", "Switchboard", "--strict"],
      { stdio: "inherit" },
    );
}
