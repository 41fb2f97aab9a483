// Every command, in the order help lists them.
import type { AnySpec } from "../registry.ts";
import { AUTOMATION_COMMANDS } from "./automations.ts";
import { CAMPAIGN_START_COMMANDS } from "./campaign-start.ts";
import { CAMPAIGN_COMMANDS } from "./campaigns.ts";
import { CHANNEL_COMMANDS } from "./channels.ts";
import { CONTACT_COMMANDS } from "./contacts.ts";
import { FIELD_COMMANDS } from "./fields.ts";
import { GROUP_COMMANDS } from "./groups.ts";
import { HELP_COMMANDS } from "./help.ts";
import { INBOX_COMMANDS } from "./inbox.ts";
import { INBOX_DESK_COMMANDS } from "./inbox-desk.ts";
import { INBOX_REPORT_COMMANDS } from "./inbox-report.ts";
import { MESSAGE_COMMANDS } from "./messages.ts";
import { REPLY_COMMANDS } from "./replies.ts";
import { REPORT_COMMANDS } from "./reports.ts";
import { SCHEDULED_COMMANDS } from "./scheduled.ts";
import { TAG_COMMANDS } from "./tags.ts";
import { TEMPLATE_COMMANDS } from "./templates.ts";
import { USER_COMMANDS } from "./users.ts";
import { WORKSPACE_COMMANDS } from "./workspace.ts";

export const ALL_COMMANDS: AnySpec[] = [
  ...HELP_COMMANDS,
  ...MESSAGE_COMMANDS,
  ...SCHEDULED_COMMANDS,
  ...CONTACT_COMMANDS,
  ...FIELD_COMMANDS,
  ...GROUP_COMMANDS,
  ...TAG_COMMANDS,
  ...TEMPLATE_COMMANDS,
  ...CAMPAIGN_COMMANDS,
  ...CAMPAIGN_START_COMMANDS,
  ...REPORT_COMMANDS,
  ...USER_COMMANDS,
  ...CHANNEL_COMMANDS,
  ...INBOX_COMMANDS,
  ...INBOX_DESK_COMMANDS,
  ...INBOX_REPORT_COMMANDS,
  ...REPLY_COMMANDS,
  ...WORKSPACE_COMMANDS,
  ...AUTOMATION_COMMANDS,
];
