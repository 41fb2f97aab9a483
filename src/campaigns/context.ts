// What the campaign code (src/campaigns) is given, and what it answers: the
// context a command runs in, as far as a campaign uses it (the registry's
// CommandContext extends it), the one road's outcome, and the port a held
// start's runner reaches the core through. Slack and the command core are
// never imported: what they do for a campaign comes in as these members.
import type { KnownBlock } from "@slack/types";
import type { Campaign, MessagingApi } from "../api/types.ts";
import type { Actor } from "../domain/actor.ts";
import type { StartRules } from "../domain/start-time.ts";
import type { CampaignCards } from "../store/campaign-cards.ts";
import type { CampaignAudiences, TestPhones } from "../store/campaigns.ts";
import type { ChannelNames } from "../store/channels.ts";
import type { HeldStarts } from "../store/held-starts.ts";
import type { TestSends } from "../store/own-sends.ts";
import type { ApprovalDeps } from "./approval-deps.ts";

/** What a campaign's code reads and writes through, for the person who asked (a command's context). */
export interface CampaignContext {
  /** Who runs the command, as Slack mrkdwn (`<@U…>`) or `the shell operator`. */
  who: string;
  api: MessagingApi;
  actor: Actor;
  /** The workspace's default messaging channel (its setting, else MESSAGING_CHANNEL_ID in single mode). */
  defaultChannelId?: number;
  /** Channel names (a channel is shown by its name, not `#1`). */
  channels: ChannelNames;
  /** Who launched a campaign through Switchboard, as mrkdwn (`<@U…>`, `the shell`), when known. */
  launchedBy: (campaignId: number) => Promise<string | undefined>;
  /** Records a write that is no API call (an inbox turned on or off) in the audit trail, as API writes are. */
  audit: (operation: string, ok: boolean, answer?: unknown) => Promise<void>;
  /** The audiences of the campaigns Switchboard created or sent (src/store/campaigns.ts); absent where not set up. */
  audiences?: CampaignAudiences;
  /** The phone each person tests campaigns on (`campaign <id> test`); absent where not set up. */
  testPhones?: TestPhones;
  /** The tests each person sent lately, and their messages as Switchboard's own sends (src/store/own-sends.ts). */
  testSends?: TestSends;
  /** The campaign cards posted in channels (src/store/campaign-cards.ts); absent where not set up. */
  campaignCards?: CampaignCards;
  /** Campaign starts Switchboard holds until a time (src/store/held-starts.ts); absent where not set up. */
  heldStarts?: HeldStarts;
  /** The workspace's time zone and quiet hours. */
  startRules: StartRules;
  /** The time now (a test's clock). */
  now: () => Date;
  /** Approval before a send (issue 28 §3): the settings, the requests, Slack's cards; absent where not set up. */
  approvals?: ApprovalDeps;
}

/** What a confirmation shows before the write: the blocks above the Confirm/Cancel buttons. */
export interface Preview {
  text: string;
  blocks: KnownBlock[];
  /** The confirm button: what it does, in a verb ("Send campaign"); default a red "Confirm". */
  confirm?: { text: string; style: "primary" | "danger"; dismiss?: string };
}

/** An answer to the person (a command's Reply has these members and more). */
export interface CampaignReply {
  /** Lookups and errors are ephemeral; writes others should know of go in the channel. */
  visibility: "ephemeral" | "in_channel";
  /** Fallback text: Slack notifications and the shell's plain rendering use it. */
  text: string;
  blocks: KnownBlock[];
}

/** What the core's audit() keeps: the line as the person would have typed it, the operation, its outcome. */
export interface CoreAuditEntry {
  command: string;
  operation: string;
  ok: boolean;
  answer?: unknown;
  /** When it happened (default now). */
  at?: Date;
}

/** What a held start's runner needs of the command core (its CommandCore has these). */
export interface HeldStartCore {
  /** A held start, when due: whether `actor` may still broadcast, then the one road (src/campaigns/road.ts). */
  startHeld(actor: Actor, campaignId: number): Promise<StartOutcome>;
  /** Keeps a held start's step in the workspace's audit log, as an API write is kept. Never throws. */
  audit(actor: Actor, entry: CoreAuditEntry): Promise<void>;
}

/** Which road a start takes: a person's Confirm, Send now anyway (past the quiet hours), a held start when due. */
export type StartRoad = "confirm" | "anyway" | "held";

/** What the one road did: sent; held for the quiet hours (until their end); refused in words (mrkdwn). */
export type StartOutcome =
  | { kind: "sent"; campaign: Campaign }
  | { kind: "quiet"; until: Date }
  | {
      kind: "refused";
      rail: "state" | "audience" | "approval";
      reason: string;
      /** Asking for approval (again) is what to do next. */
      ask: boolean;
      /** What changed since the approval (it was voided). */
      changed?: string[];
      /** The campaign's status, when refused for it. */
      status?: string;
    };
