// The inbox engine: customers' conversations mirrored into threads of an
// inbox's channel (docs/inbox.md). The API has no webhooks, so each inbox is
// polled, on a timer, in passes that never overlap: per inbox this process
// holds the lease of (lease.ts), what moved (scan.ts), the histories of the
// conversations that moved (follow.ts), their cards (cards.ts). Every API call
// is in the client's background lane: it waits for people's commands, never
// the other way round. The front end is passed in (io.ts): the engine knows
// none; Slack's side is src/slack/features/inbox/io.ts.
import type { MessagingApi } from "../api/types.ts";
import type { WorkClock } from "../domain/business-hours.ts";
import { inboxPassDone, metrics } from "../platform/metrics.ts";
import { PacedLoop } from "../platform/paced-loop.ts";
import type { InboxStore } from "../store/inbox.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";
import { Cards } from "./cards.ts";
import type { PassContext } from "./context.ts";
import { Follow } from "./follow.ts";
import type { AwayPort, InboxEvent, InboxIo, InboxLogger } from "./io.ts";
import { Lease, LeaseLost, newWorkerId } from "./lease.ts";
import { Scan } from "./scan.ts";
import { checkTargets } from "./targets.ts";

export interface InboxEngineOptions {
  /** The stores of the workspace whose inboxes this engine mirrors (one engine per workspace). */
  stores: Pick<WorkspaceStores, "inbox" | "ownSends" | "cardMarks">;
  client: MessagingApi;
  /** The front end's side: posts, card updates, what a crash left posted, its errors. */
  io: InboxIo;
  /** INBOX_POLL_SECONDS: the pace of the polls (default 10). */
  pollSeconds?: number;
  /** INBOX_LOOKBACK_HOURS: how far back a poll catches up after downtime (default 24). */
  lookbackHours?: number;
  now?: () => Date;
  /** The workspace's business hours in its zone, read when a clock starts or stops (reply targets); unset: around the clock. */
  workClock?: () => WorkClock | undefined;
  workerId?: string;
  /** How long a lease outlives the poll it was taken for (default 30 s). */
  leaseMs?: number;
  logger?: InboxLogger;
  /** The workspace's automations hear its inboxes' events (issue 40 §3); unset: nobody. */
  onEvent?: (e: InboxEvent) => Promise<unknown>;
  /** The workspace's away message (issue 40 §1); unset: none is sent. */
  away?: AwayPort;
}

export interface InboxStepResult {
  /** API reads made (lists, chat users, histories, tags). */
  reads: number;
  /** Messages posted in threads. */
  posted: number;
  /** Threads created (cards posted). */
  threads: number;
}

const silent: InboxLogger = { info() {}, warn() {} };

export class InboxEngine {
  readonly store: InboxStore;
  readonly workerId: string;
  private readonly ctx: PassContext;
  private readonly scan: Scan;
  private readonly cards: Cards;
  private readonly loop: PacedLoop<InboxStepResult>;
  private readonly pollMs: number;
  /**
   * When an inbox whose last poll failed is polled again: ×2 the pace per failure in a row, up to ×32, each
   * inbox on its own (one failing inbox never slows the others). Kept here, the failures in the store: an
   * inbox taken over by another process is polled by it at once, then spaced from the count it reads.
   */
  private readonly retryAt = new Map<string, number>();

  constructor(opts: InboxEngineOptions) {
    this.store = opts.stores.inbox;
    const now = opts.now ?? (() => new Date());
    const pollMs = (opts.pollSeconds ?? 10) * 1000;
    this.pollMs = pollMs;
    this.workerId = opts.workerId ?? newWorkerId();
    const log = opts.logger ?? silent;
    const lease = new Lease({
      store: this.store,
      workerId: this.workerId,
      now,
      pollMs,
      leaseMs: opts.leaseMs ?? 30_000,
    });
    const ctx: PassContext = {
      store: this.store,
      ownSends: opts.stores.ownSends,
      marks: opts.stores.cardMarks,
      client: opts.client,
      io: opts.io,
      log,
      now,
      async told(e) {
        try {
          await opts.onEvent?.(e);
        } catch (err) {
          log.warn(
            { channel: e.channel, event: e.type, err: String(err) },
            "an inbox event was not kept for automations",
          );
        }
      },
      workClock: opts.workClock ?? (() => undefined),
      ...(opts.away ? { away: opts.away } : {}),
      lease,
      lookbackMs: (opts.lookbackHours ?? 24) * 3_600_000,
      inboxes: [],
      reads: 0,
      read(p) {
        ctx.reads++;
        return p;
      },
    };
    this.ctx = ctx;
    this.cards = new Cards(ctx);
    this.scan = new Scan(ctx, new Follow(ctx, this.cards));
    this.loop = new PacedLoop({
      pass: () =>
        this.pass().then((r) => {
          inboxPassDone();
          metrics.inboxMirrored.inc(r.posted);
          return r;
        }),
      // Every pace: an inbox that failed waits for its own time (retryAt).
      next: async () => pollMs,
      onError: (err) => log.warn({ err: (err as Error).message }, "inbox pass failed"),
    });
  }

  /** One poll of every inbox this process holds or can claim. Passes never overlap. */
  step(): Promise<InboxStepResult> {
    return this.loop.step();
  }

  private async pass(): Promise<InboxStepResult> {
    const { ctx, store } = this;
    const result: InboxStepResult = { reads: 0, posted: 0, threads: 0 };
    ctx.inboxes = await store.inboxes();
    for (const channel of this.retryAt.keys())
      if (!ctx.inboxes.some((i) => i.channel === channel)) this.retryAt.delete(channel);
    for (const listed of ctx.inboxes) {
      const inbox = await ctx.lease.claim(listed.channel);
      if (!inbox) continue;
      ctx.reads = 0;
      const retryAt = this.retryAt.get(inbox.channel);
      const waiting = inbox.failures > 0 && retryAt !== undefined && ctx.now().getTime() < retryAt;
      if (!waiting)
        try {
          const r = await this.scan.poll(inbox);
          this.retryAt.delete(inbox.channel);
          result.posted += r.posted;
          result.threads += r.threads;
          await this.cards.showClosedWindows(inbox.channel);
          await this.cards.wakeSnoozed(inbox.channel);
        } catch (err) {
          if (err instanceof LeaseLost) {
            ctx.log.warn({ channel: inbox.channel }, "inbox lease taken by another process; this pass stops");
          } else {
            const failures = inbox.failures + 1;
            const waitMs = this.pollMs * 2 ** Math.min(failures, 5);
            this.retryAt.set(inbox.channel, ctx.now().getTime() + waitMs);
            await store.polled(inbox.channel, this.workerId, { failures });
            ctx.log.warn(
              {
                channel: inbox.channel,
                err: (err as Error).message,
                code: ctx.io.errorCode(err),
                failures,
                retryInSeconds: waitMs / 1000,
              },
              "inbox poll failed; will retry",
            );
          }
        }
      // Reply targets: warnings and breaches due, from the store alone (no API read), even when the poll failed.
      try {
        await checkTargets(ctx, inbox);
      } catch (err) {
        if (!(err instanceof LeaseLost))
          ctx.log.warn({ channel: inbox.channel, err: (err as Error).message }, "reply targets not checked");
      }
      result.reads += ctx.reads;
    }
    return result;
  }

  /** Polls on a timer until stop(); slows down after failures. */
  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.ctx.lease.release().catch((err) => {
      this.ctx.log.warn({ err: (err as Error).message }, "could not release inbox leases");
    });
  }

  /** A new inbox: poll now rather than at the next tick. */
  wake(): void {
    this.loop.wake();
  }
}
