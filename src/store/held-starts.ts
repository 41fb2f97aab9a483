// Held starts (issue 28 §4, issue 37 §1): a campaign Switchboard itself
// starts at a time (`campaign <id> send at=…`, quiet hours, the campaign
// form's start time), kept on the claimed-once timer (timers.ts, kind
// `campaign-start`): this is its typed view, in the campaign's words. Each
// state change is one conditional update of the timer, so a start runs once
// whichever process (a restart, a second replica) gets there first: `held` →
// `running` is the claim, taken before POST /campaigns/{id}/send.
//   held → running → sent | failed | unknown (the send's outcome not known: never repeated)
//   held → skipped (cancelled or sent meanwhile) | cancelled (Cancel start) |
//          asked (missed by more than an hour: the requester asked) | refused (the check said no)
//   asked → running (Start now) | cancelled
// The timer's words: held is `waiting`, sent is `done`; the others are the same. At most one live (held,
// asked, running) start per campaign: the timer's unique index on the payload's campaign id. A start's id is
// the timer's number, its workspace's own. Per workspace.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import { type Timer, type TimerChange, type TimerState, Timers } from "./timers.ts";

/** The timer's kind of a held start. */
export const CAMPAIGN_START = "campaign-start";

export type HeldState =
  | "held"
  | "running"
  | "sent"
  | "failed"
  | "unknown"
  | "skipped"
  | "cancelled"
  | "asked"
  | "refused";

/** Why it is held: a time asked for, the quiet hours, the campaign form's start time. */
export type HeldReason = "asked" | "quiet" | "created";

/** A held start's payload on the timer. */
export interface CampaignStartPayload {
  campaignId: number;
  campaignName: string;
  reason: HeldReason;
}

export interface HeldStart {
  /** The timer's number (per workspace). */
  id: number;
  workspace: WorkspaceId;
  campaignId: number;
  campaignName: string;
  at: Date;
  /** Slack user id, or `shell`. */
  requestedBy: string;
  via: "slack" | "shell";
  reason: HeldReason;
  state: HeldState;
  /** Why it was skipped, failed, refused (words). */
  detail?: string;
  /** Who cancelled it or started it early. */
  decidedBy?: string;
  /** The card that shows it (edited when its state changes). */
  channel?: string;
  ts?: string;
  claimedBy?: string;
  updatedAt: Date;
  /** Bumped by every change: a claim names the version it read, so a start moved since is not run. */
  version: number;
  /** When it was claimed to be sent (not when it was due). */
  ranAt?: Date;
}

const timerState = (s: HeldState): TimerState => (s === "held" ? "waiting" : s === "sent" ? "done" : s);
const heldState = (s: TimerState): HeldState =>
  s === "waiting" ? "held" : s === "done" ? "sent" : (s as HeldState);

/** A campaign-start timer as a held start. */
export const heldOf = (t: Timer<CampaignStartPayload>): HeldStart => ({
  id: t.number,
  workspace: t.workspace,
  campaignId: Number(t.payload.campaignId),
  campaignName: String(t.payload.campaignName),
  at: t.at,
  requestedBy: t.setBy,
  via: t.via,
  reason: t.payload.reason,
  state: heldState(t.state),
  detail: t.detail,
  decidedBy: t.decidedBy,
  channel: t.channel,
  ts: t.ts,
  claimedBy: t.claimedBy,
  updatedAt: t.updatedAt,
  version: t.version,
  ranAt: t.ranAt,
});
const maybe = (t: Timer<CampaignStartPayload> | undefined) => (t ? heldOf(t) : undefined);

/** One workspace's held starts: its campaign-start timers. */
export class HeldStarts {
  readonly workspace: WorkspaceId;
  readonly timers: Timers<CampaignStartPayload>;

  constructor(db: Queryable, workspace: WorkspaceId) {
    this.workspace = workspace;
    this.timers = new Timers<CampaignStartPayload>(db, workspace, CAMPAIGN_START);
  }

  /**
   * Holds a start of `campaignId` at `at`; a live one of the same campaign is
   * moved to the new time instead (one start per campaign). Undefined when
   * the campaign's start is already running.
   */
  async hold(
    s: Pick<HeldStart, "campaignId" | "campaignName" | "at" | "requestedBy" | "via" | "reason"> & {
      now: Date;
    },
  ): Promise<HeldStart | undefined> {
    return maybe(
      await this.timers.setOnly("campaignId", {
        at: s.at,
        setBy: s.requestedBy,
        via: s.via,
        payload: { campaignId: s.campaignId, campaignName: s.campaignName, reason: s.reason },
        now: s.now,
      }),
    );
  }

  async get(id: number): Promise<HeldStart | undefined> {
    return maybe(await this.timers.get(id));
  }

  /** The campaign's live start (held, asked or running), else its latest. */
  async ofCampaign(campaignId: number): Promise<HeldStart | undefined> {
    return maybe(await this.timers.latestOf("campaignId", campaignId));
  }

  /**
   * One state change, taken only from one of `from`: the claim. Undefined when
   * the start is not (any more) in one of them: someone else got there first.
   */
  async move(
    id: number,
    from: readonly HeldState[],
    to: HeldState,
    now: Date,
    /** `at`: a new time (a start due in the quiet hours, held again until they end), with its `reason`. */
    extra: Omit<TimerChange<CampaignStartPayload>, "payload" | "merge"> & { reason?: HeldReason } = {},
  ): Promise<HeldStart | undefined> {
    const { reason, ...rest } = extra;
    return maybe(
      await this.timers.move(id, from.map(timerState), timerState(to), now, {
        ...rest,
        ...(reason ? { merge: { reason } } : {}),
      }),
    );
  }

  /** The card that shows the start, to edit it when its state changes. */
  async setCard(id: number, channel: string, ts: string): Promise<void> {
    await this.timers.setCard(id, channel, ts);
  }
}
