// Live progress: after a confirmed `campaign <id> send`, the campaign's
// message in the channel updates itself (chat.update) until the campaign is
// completed, failed or cancelled, then shows the final figures.
//
// Cost: a poll is one summary (1 GET + 7 `limit=1` recipient pages = 8 reads)
// in the client's background lane, which never takes more than
// BACKGROUND_READ_SHARE of the read budget. The interval grows with the
// number of campaigns followed so polling alone stays inside that share:
//   interval = max(base, campaigns × 8 / background reads per second).
// Slack: chat.update at most once per message every `minUpdateMs`, and only
// when the figures changed. Tracked messages live in the store (schema
// `progress`), so a restart resumes them.
// Two processes on one database: each message is polled by the process that
// holds its lease (claimed atomically before a poll, renewed by each poll
// until the next one is due plus `leaseMs`); a stopped process lets go of its
// leases, a dead one's run out and another process takes the messages over.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KnownBlock } from "@slack/types";
import { NotFoundError } from "../../../api/errors.ts";
import type { MessagingApi } from "../../../api/types.ts";
import { FINAL_STATUSES, goneMessage, progressMessage } from "../../../campaigns/live-card.ts";
import type { LogsAt } from "../../../platform/log.ts";
import { PacedLoop } from "../../../platform/paced-loop.ts";
import type { Clock } from "../../../reports/scheduler.ts";
import { type CampaignSummary, STATUSES, summarizeCampaign } from "../../../reports/summary.ts";
import type { Lease, ProgressStore, Tracked } from "../../../store/progress.ts";
import { messageGone, slackCode } from "../../io/slack-errors.ts";

/** Reads one poll of a campaign costs: GET /campaigns/{id} + 7 status totals. */
export const COST_PER_POLL = 8;

export type UpdateFn = (
  channel: string,
  ts: string,
  message: { text: string; blocks: KnownBlock[] },
) => Promise<void>;

export type ProgressLogger = LogsAt<"info" | "warn">;

export interface ProgressOptions {
  /** The tracked campaigns of the workspace this tracker follows (one tracker per workspace; its stores'). */
  store: ProgressStore;
  client: MessagingApi;
  /** chat.update of one message; throws Slack's error. */
  update: UpdateFn;
  /** Reads a second the background lane may use: API_READ_LIMIT × BACKGROUND_READ_SHARE / 60. */
  backgroundReadsPerSecond: number;
  clock?: Clock;
  /** Shortest time between two polls of a campaign (default 5 s). */
  basePollMs?: number;
  /** Shortest time between two chat.update of one message (default 3 s). */
  minUpdateMs?: number;
  /** A campaign still not finished after this long stops being followed (default 24 h). */
  maxAgeMs?: number;
  /** Name of this process in leases; defaults to host:pid:random. */
  workerId?: string;
  /** How long a lease outlives the poll it was due for (default 30 s): a dead process's messages wait that long. */
  leaseMs?: number;
  logger?: ProgressLogger;
  /**
   * A campaign seen to end (completed, failed, cancelled) by the poll that drew its final figures, once: the
   * card's move to `done` is conditional on its lease (issue 40 §3: campaign.completed, campaign.failed).
   */
  onFinished?: (s: CampaignSummary) => Promise<void>;
}

export interface StepResult {
  /** Campaigns summarized. */
  polled: number;
  /** chat.update calls made. */
  updated: number;
}

const silent: ProgressLogger = { info() {}, warn() {} };
const sameCounts = (a: CampaignSummary["counts"] | null, b: CampaignSummary["counts"]) =>
  a !== null && STATUSES.every((s) => a[s] === b[s]);

export class ProgressTracker {
  readonly store: ProgressStore;
  readonly workerId: string;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly basePollMs: number;
  private readonly minUpdateMs: number;
  private readonly maxAgeMs: number;
  private readonly log: ProgressLogger;
  private readonly loop: PacedLoop<StepResult>;

  private readonly opts: ProgressOptions;
  constructor(opts: ProgressOptions) {
    this.opts = opts;
    this.store = opts.store;
    this.clock = opts.clock ?? { now: () => new Date() };
    this.basePollMs = opts.basePollMs ?? 5_000;
    this.minUpdateMs = opts.minUpdateMs ?? 3_000;
    this.maxAgeMs = opts.maxAgeMs ?? 24 * 3_600_000;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.log = opts.logger ?? silent;
    this.loop = new PacedLoop({
      pass: () => this.pass(),
      next: () => this.untilNextDue(),
      onError: (err) => this.log.warn({ err: (err as Error).message }, "campaign progress pass failed"),
    });
  }

  /** How long between two polls of each campaign when `campaigns` are followed at once. */
  pollIntervalMs(campaigns: number): number {
    const perSecond = Math.max(0.001, this.opts.backgroundReadsPerSecond);
    return Math.max(this.basePollMs, Math.ceil((campaigns * COST_PER_POLL * 1000) / perSecond));
  }

  /** Starts following a posted message; the first poll is due at once. */
  async track(t: { channel: string; ts: string; campaignId: number; startedBy?: string; intro: string }) {
    await this.store.track(t, this.clock.now());
    this.log.info({ campaignId: t.campaignId, channel: t.channel }, "following campaign progress");
    this.wake();
  }

  /**
   * A person changed the campaign (cancelled it): its live cards show the new
   * status at once, not at the next poll. Returns how many were updated.
   */
  async refreshNow(campaignId: number): Promise<number> {
    const rows = (await this.store.live()).filter((t) => t.campaignId === campaignId);
    if (!rows.length) return 0;
    const s = await summarizeCampaign(this.opts.client, campaignId, { lane: "background" });
    const now = this.clock.now();
    const every = this.pollIntervalMs(1);
    const next = new Date(now.getTime() + every);
    let updated = 0;
    for (const t of rows) {
      const ok = await this.apply(t, progressMessage(s, this.view(t, now, every)));
      // Not updated now (Slack failed): the next poll shows it.
      if (ok === undefined) continue;
      const state = !ok ? "gone" : FINAL_STATUSES.has(s.status) ? "done" : "live";
      await this.store.polled(t, {
        status: s.status,
        counts: s.counts,
        updatedAt: now,
        nextPollAt: next,
        failures: 0,
        state,
        now,
      });
      if (ok) updated++;
    }
    return updated;
  }

  /** The lease a poll renews: held until the next poll is due, plus leaseMs. */
  private lease(nextPollAt: Date): Lease {
    return { worker: this.workerId, until: new Date(nextPollAt.getTime() + this.leaseMs) };
  }

  /** Held by another process whose lease has not run out: not ours to poll. */
  private heldElsewhere(t: Tracked, now: Date): boolean {
    return (
      t.leaseOwner !== null && t.leaseOwner !== this.workerId && t.leaseUntil !== null && t.leaseUntil >= now
    );
  }

  /**
   * One pass: every message whose poll is due and that this process holds or
   * can claim is polled (one summary per campaign) and updated.
   */
  step(): Promise<StepResult> {
    // Passes never overlap: a timer pass and a test's manual pass wait for each other.
    return this.loop.step();
  }

  private async pass(): Promise<StepResult> {
    const now = this.clock.now();
    const live = await this.store.live();
    const campaigns = new Set(live.map((t) => t.campaignId)).size;
    const every = this.pollIntervalMs(campaigns);
    const due = new Set<number>();
    for (const t of live) {
      if (t.nextPollAt <= now && !this.heldElsewhere(t, now)) due.add(t.campaignId);
    }
    const result: StepResult = { polled: 0, updated: 0 };
    // One campaign after another: a long list must not queue ahead of people's commands.
    for (const campaignId of due) {
      // The claim decides (another process may have polled since live() was read); its rows are fresh.
      const claimedAt = this.clock.now();
      const rows = await this.store.claimDue(
        campaignId,
        this.workerId,
        claimedAt,
        new Date(claimedAt.getTime() + this.leaseMs),
      );
      if (rows.length === 0) continue;
      let summary: CampaignSummary;
      try {
        summary = await summarizeCampaign(this.opts.client, campaignId, { lane: "background" });
        result.polled++;
      } catch (err) {
        if (err instanceof NotFoundError) {
          for (const t of rows) {
            if (await this.apply(t, goneMessage(this.view(t, now), "it no longer exists."))) result.updated++;
            await this.store.polled(t, {
              nextPollAt: now,
              failures: 0,
              state: "gone",
              now,
              lease: this.lease(now),
            });
          }
          continue;
        }
        // API down or slow: look again later, spaced out, without touching the message.
        for (const t of rows) {
          const failures = t.failures + 1;
          const wait = every * 2 ** Math.min(failures, 5);
          const nextPollAt = new Date(now.getTime() + wait);
          await this.store.polled(t, { nextPollAt, failures, now, lease: this.lease(nextPollAt) });
        }
        this.log.warn(
          { campaignId, err: (err as Error).message },
          "campaign progress poll failed; will retry",
        );
        continue;
      }
      for (const t of rows) {
        if (await this.show(t, summary, now, every)) result.updated++;
      }
    }
    return result;
  }

  private view(t: Tracked, at: Date, everyMs?: number) {
    return { intro: t.intro, campaignId: t.campaignId, at, everyMs };
  }

  /** Updates one message when its figures changed (always for the final ones), within Slack's pace. */
  private async show(t: Tracked, s: CampaignSummary, now: Date, every: number): Promise<boolean> {
    const final = FINAL_STATUSES.has(s.status);
    const expired = !final && now.getTime() - t.createdAt.getTime() > this.maxAgeMs;
    const changed = t.lastStatus !== s.status || !sameCounts(t.lastCounts, s.counts);
    const next = new Date(now.getTime() + every);
    if (!changed && !final && !expired) {
      await this.store.polled(t, { nextPollAt: next, failures: 0, now, lease: this.lease(next) });
      return false;
    }
    const sinceUpdate = t.lastUpdateAt ? now.getTime() - t.lastUpdateAt.getTime() : Number.POSITIVE_INFINITY;
    if (sinceUpdate < this.minUpdateMs) {
      // Too soon for Slack: the figures wait (the final ones are never dropped, only delayed).
      const later = new Date(now.getTime() + Math.max(this.minUpdateMs - sinceUpdate, 1));
      const nextPollAt = final ? later : next;
      await this.store.polled(t, { nextPollAt, failures: 0, now, lease: this.lease(nextPollAt) });
      return false;
    }
    const message = progressMessage(s, {
      ...this.view(t, now, every),
      stopped: expired
        ? `Stopped updating after ${Math.round(this.maxAgeMs / 3_600_000)} h; \`/sb report now ${t.campaignId}\` gives the latest figures.`
        : undefined,
    });
    const ok = await this.apply(t, message);
    if (ok === undefined) {
      await this.store.polled(t, {
        nextPollAt: next,
        failures: t.failures + 1,
        now,
        lease: this.lease(next),
      });
      return false;
    }
    const kept = await this.store.polled(t, {
      status: s.status,
      counts: s.counts,
      updatedAt: ok ? now : undefined,
      nextPollAt: next,
      failures: 0,
      state: !ok ? "gone" : final || expired ? "done" : "live",
      now,
      lease: this.lease(next),
    });
    // Its end told once: by the poll whose move to done was kept (another process's lease loses it).
    if (final && kept && this.opts.onFinished)
      await this.opts
        .onFinished(s)
        .catch((err: unknown) =>
          this.log.warn(
            { campaignId: t.campaignId, err: (err as Error).message },
            "a campaign's end was not told",
          ),
        );
    return ok;
  }

  /**
   * chat.update; true when done, false when the message is gone for good
   * (the caller records it), undefined to try again later.
   */
  private async apply(
    t: Tracked,
    message: { text: string; blocks: KnownBlock[] },
  ): Promise<boolean | undefined> {
    try {
      await this.opts.update(t.channel, t.ts, message);
      return true;
    } catch (err) {
      const code = slackCode(err);
      if (messageGone(err)) {
        this.log.info({ channel: t.channel, code }, "campaign progress message can no longer be updated");
        return false;
      }
      this.log.warn(
        { channel: t.channel, code, err: (err as Error).message },
        "chat.update failed; will retry",
      );
      return undefined;
    }
  }

  /** Polls on a timer (real time) until stop(); resumes the messages the store holds. */
  start(): void {
    this.loop.start();
  }

  /** Stops polling and lets go of this process's leases, so another process takes over at once. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.store.release(this.workerId).catch((err) => {
      this.log.warn({ err: (err as Error).message }, "could not release campaign progress leases");
    });
  }

  /** A new message to follow: poll now rather than at the next tick. */
  private wake(): void {
    this.loop.wake();
  }

  /** Milliseconds until the soonest message is due; undefined when none is followed. */
  private async untilNextDue(): Promise<number | undefined> {
    const live = await this.store.live().catch(() => []);
    const now = this.clock.now();
    // A message another process holds is due for us only once its lease runs out.
    const soonest = Math.min(
      ...live.map((t) =>
        this.heldElsewhere(t, now)
          ? Math.max(t.nextPollAt.getTime(), (t.leaseUntil as Date).getTime())
          : t.nextPollAt.getTime(),
      ),
    );
    // Nothing to follow: sleep until track() wakes us.
    if (!Number.isFinite(soonest)) return undefined;
    return Math.max(250, soonest - now.getTime());
  }
}
