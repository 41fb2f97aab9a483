// Every form the core can ask for, by kind, with the data it opens with: a
// leaf of the core (API record types only), so the reply's type and the forms'
// loaders can both name it. The Slack app holds one module per kind
// (src/slack/forms/); the shell has no forms.
import type { KnownBlock } from "@slack/types";
import type { ApiRecord, ContactField, Group, Tag } from "../api/types.ts";
import type { ConnectionSummary, EffectiveSettings } from "./workspace-admin.ts";

export interface ChannelsFormData {
  /** Channels to offer, the default first. */
  channels: number[];
  defaultChannelId?: number;
  /** The channels' names by id, where people gave one. */
  channelNames?: Record<number, string>;
}

export interface CampaignFormData extends ChannelsFormData {
  tags: Tag[];
  groups: Group[];
}

/** The message form opened for someone already chosen (a card's "Send message", an inbox card's Reply). */
export interface SendPrefill {
  /** A phone number, in the phone field. */
  to?: string;
  /** A contact or chat user, chosen: `contact:12` / `user:4`, with the text the menu shows. */
  recipient?: { value: string; label: string };
  /** The message type chosen (text when not said). */
  type?: "text" | "template";
}

/** The inbox form (`/sb inbox on` alone): the channel's inbox as it is, the chat types, the business hours in words. */
export interface InboxFormData {
  /** The channel it was opened in (the inbox's channel by default). */
  channel?: string;
  current?: {
    needHuman: boolean;
    types: string[];
    replies: "send" | "notes";
    firstSecs: number | null;
    nextSecs: number | null;
    here: boolean;
    /** The approved template that asks for a rating on Resolve; null: none. */
    ratingTemplate?: string | null;
    /** The workspace's away message goes out in its conversations (issue 40 §1). */
    away?: boolean;
  };
  chatTypes: Array<{ value: string; label: string }>;
  /** The workspace's business hours and zone, when set (targets count in them). */
  hours?: string;
  /** The workspace has an away message (issue 40 §1). */
  awayMessage?: boolean;
}

/** Every form the core can ask for, by kind, with the data it opens with. */
export interface FormKinds {
  campaign: CampaignFormData;
  send: ChannelsFormData & { prefill?: SendPrefill };
  template: ChannelsFormData;
  contact: { id: number; record: ApiRecord; fields: ContactField[] };
  "chat-user": { id: number; record: ApiRecord; fields: ContactField[] };
  import: { groups: Group[] };
  /** The workspace's API key (`/sb connect`): the account in use, and whether a demo account is offered. */
  connect: { demo: boolean; connection?: ConnectionSummary };
  /** The workspace's settings (`/sb settings`), with the messaging channels people named. */
  settings: {
    settings: EffectiveSettings;
    /** The messaging channels Switchboard knows (named ones, the templates'), by name ("Channel 4" when unnamed). */
    channels: Array<{ id: number; name: string }>;
    /** Added by Slack's side: the workspace's user groups by id, or unavailable (a plan without them). */
    groups?: { available: boolean; names: Record<string, string> };
  };
  inbox: InboxFormData;
  /** Reject… on an approval card: a short reason for the requester. */
  "approval-reject": { campaignId: number; requestId: number; name: string };
  /** Send at… on a campaign card: the campaign, the time offered (seconds: the next outside the quiet hours), the confirmation. */
  "send-at": SendAtFormData;
  /** A saved reply added (`/sb reply add` alone) or edited (`/sb reply edit <name>` alone): the one edited. */
  "saved-reply-edit": { reply?: { name: string; text: string; inbox: string | null } };
  /** Edit… on a message sent later (`/sb scheduled`): its text and time as they are, read with its version. */
  "scheduled-edit": ScheduledEditFormData;
}

export interface ScheduledEditFormData {
  /** The workspace's own number of it. */
  number: number;
  /** The version read: saving changes it only if nothing else did since (a send, a cancel, another edit). */
  version: number;
  /** Whom, in words. */
  whom: string;
  /** Its text, a text message's; none: another type, whose time alone may change here. */
  text?: string;
  /** What it is, in short ("template welcome"), for another type. */
  said: string;
  /** When, in the workspace's zone as one types it: `2026-12-01 09:00`. */
  at: string;
  /** The workspace's time zone; none: UTC. */
  tz?: string;
  /** Who set it (a Slack user id, or `shell`). */
  setBy: string;
}

export interface SendAtFormData {
  id: number;
  name: string;
  /** Seconds since the epoch. */
  at: number;
  /** The workspace's time zone and quiet hours in words, when set. */
  rules?: string;
  /** The send prompt's blocks: what is sent, to whom. */
  preview: { text: string; blocks: KnownBlock[] };
}
export type FormKind = keyof FormKinds;

export type FormRequest = { [K in FormKind]: { kind: K; data: FormKinds[K] } }[FormKind];
