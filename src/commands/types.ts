import type { KnownBlock } from "@slack/types";
import type { MessagingApi } from "../api/types.ts";
import type { CampaignReply, CoreAuditEntry, StartOutcome } from "../campaigns/context.ts";
import type { Actor } from "../domain/actor.ts";
import type { HeldStart } from "../store/held-starts.ts";
import type { FormRequest } from "./form-kinds.ts";
import type { WorkspaceAdmin } from "./workspace-admin.ts";

/**
 * The access a command needs: read, anyone; write, SWITCHBOARD_WRITERS (empty: everyone);
 * broadcast (campaign send and cancel), SWITCHBOARD_BROADCASTERS (empty: the writers).
 */
export type Access = "read" | "write" | "broadcast";

export { ACTION } from "../blocks/actions.ts";
export type { CoreAuditEntry, StartOutcome, StartRoad } from "../campaigns/context.ts";
export type { Actor } from "../domain/actor.ts";

export interface Reply extends CampaignReply {
  /**
   * Set when the reply asks the user to confirm (campaign send and cancel,
   * every delete). The blocks carry Confirm/Cancel buttons with action ids
   * ACTION.confirm / ACTION.dismiss and this id as value; the shell asks y/N.
   */
  confirmation?: { id: string; prompt: string };
  /**
   * Set when the answer is a form: which one, with what data. The Slack app
   * opens it as a modal; the shell prints the usage and an example of the
   * command line that does the same.
   */
  form?: FormRequest;
  /**
   * Set by the core on the answer of a command that ran: which command, and
   * the record id it acted on. Front ends use it to follow up (the Slack app
   * updates a launched campaign's message with its progress).
   */
  origin?: {
    command: string;
    id?: number;
    facts?: string;
    heldStart?: number;
    /** Post it in this channel rather than where it was asked (a send started from a DM); the DM says where. */
    postIn?: string;
    /**
     * A campaign's card for the channel (issue 37 §4): what it is (the live card of a send, a held start's
     * card, the campaign's card), and the campaign as it stands now; posting it finishes the older cards.
     */
    card?: { role: "live" | "held" | "card"; name: string; status: string };
    /**
     * The campaign's card as it stands now, after a change that posts no new card (an approval asked for,
     * given or refused): the campaign's current cards in channels (not its live card) are redrawn with it.
     */
    redraw?: { text: string; blocks: KnownBlock[] };
  };
}

export interface CommandCore {
  /** Runs one command line (with or without the leading `/sb`). Never throws for user or API errors. */
  run(line: string, actor: Actor): Promise<Reply>;
  /** Confirms a pending write. Runs it at most once, even when clicked twice or after a restart. */
  confirm(confirmationId: string, actor: Actor): Promise<Reply>;
  /** Drops a pending confirmation. */
  dismiss(confirmationId: string, actor: Actor): Promise<Reply>;
  /** Whether `actor` is one of those who have `access` (SWITCHBOARD_WRITERS / _BROADCASTERS). */
  may(actor: Actor, access: Access): Promise<boolean>;
  /** The names people gave the messaging channels (`/sb channel name`), by id; empty when none or unreadable. */
  channelNames(): Promise<Record<number, string>>;
  /**
   * For forms and uploads, which build their request themselves: checks that
   * `actor` has `what.access` (throws a UserError saying who may), then
   * runs `work` with the API client whose writes are audited as `what.command`.
   */
  perform<T>(
    actor: Actor,
    what: { access: Access; command: string },
    work: (api: MessagingApi) => Promise<T>,
  ): Promise<T>;
  /**
   * Keeps `actor`'s work done outside the API client (a form's store write, a
   * held start's step) as an API write is kept: a row in the workspace's audit
   * log, told to its audit channel. Never throws (a failure is logged).
   */
  audit(actor: Actor, entry: CoreAuditEntry): Promise<void>;
  /** The country of phone numbers written without a + code (the workspace's, else the deployment's); none: not set. */
  readonly defaultCountry?: string;
  /**
   * The messaging channel used when none is named: the workspace's setting (`/sb settings`), else its runtime's
   * default (single mode: MESSAGING_CHANNEL_ID; the embedded sandbox: its first channel); none: not set. Read it
   * here, never from the deployment's config: in many-workspace mode each workspace has its own.
   */
  readonly defaultChannelId?: number;
  /** The workspace's connection and settings, for the connect and settings forms; absent where not set up. */
  readonly admin?: WorkspaceAdmin;
  /**
   * A held start, when due (issue 37 §1): whether `actor` (who set it) may still broadcast, then the one road
   * (campaigns/road.ts) with every rail as it stands now. Throws a UserError when they may not.
   */
  startHeld(actor: Actor, campaignId: number): Promise<StartOutcome>;
  /**
   * Sets a campaign's start at `at` outside a command line (the campaign form): who may and the approval checked
   * as for `send at=`; audited as `line`. Throws a UserError in words when it may not be set.
   */
  setStart?(actor: Actor, campaignId: number, at: Date, line: string): Promise<HeldStart>;
  /**
   * A start time chosen outside a command line (the campaign form's), checked
   * as `at=` is: a date that exists, in the future, at most a year away,
   * outside the workspace's quiet hours. The refusal in words, or undefined.
   */
  startTimeProblem?(at: Date): string | undefined;
}
