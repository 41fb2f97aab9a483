// The deliveries' worker (issue 40 §3, Delivery), on the pg-boss queue
// `automations`, so replicas share the jobs and each attempt runs on one of
// them (the delivery row is claimed before the POST). A job names a delivery;
// the worker claims it, sends it once (send.ts) and keeps the outcome: a
// success, a refusal (another 4xx, a refused address: failed at once), or a
// retry with backoff (the first within FIRST_RETRY_SECONDS, a 429's
// Retry-After honoured) until 24 hours after the event, then failed. Several
// jobs run at once (localConcurrency), each attempt 10 s at most, and at most
// ATTEMPTS_PER_HOOK of them one hook's (a hook is a pg-boss group), so a
// hanging endpoint holds two slots, never another hook's events. A job sent
// wakes the workers (the queue's `notify`), the poll a second a backstop. A
// sweep queues deliveries that no job carries (the queue was away when the
// event came, a replica stopped).
import type { PgBoss } from "pg-boss";
import type { Logger } from "../platform/log.ts";
import type { Keyring } from "../platform/secrets.ts";
import { AutomationStore, pendingDeliveries } from "../store/automations.ts";
import type { Db } from "../store/db.ts";
import type { AddressRules } from "./address.ts";
import type { SwitchboardEvent } from "./events.ts";
import { ATTEMPT_TIMEOUT_MS, attempt } from "./send.ts";
import { type DeliveryJob, type DeliveryQueue, openHook } from "./service.ts";

export const AUTOMATIONS_QUEUE = "automations";
/**
 * At most this many of a replica's attempts at once are one hook's (pg-boss's group concurrency, a hook a
 * group): an endpoint that hangs holds 2 of the 8, and the others' events go by (docs/benchmarks.md).
 */
export const ATTEMPTS_PER_HOOK = 2;
/** The boss the worker runs on listens for its queue's notices (src/store/boss.ts createBoss's options). */
export const AUTOMATIONS_BOSS = { useListenNotify: true } as const;
/** How long failures are retried, from the event. */
export const RETRY_FOR_MS = 24 * 3600_000;

export interface WorkerOptions {
  db: Db;
  boss: PgBoss;
  keyring?: Keyring;
  rules: AddressRules;
  logger?: Logger;
  now?: () => Date;
  /** The first retry's delay (default 10 s), doubled each time up to an hour. */
  firstRetrySeconds?: number;
  /** Attempts run at once on this replica (default 8). */
  concurrency?: number;
  pollingIntervalSeconds?: number;
  /** How often pending deliveries no job carries are queued (default 60 s; 0: only at start). */
  sweepSeconds?: number;
  timeoutMs?: number;
}

/** The delay before retry `n` (1 = the first retry). */
export const backoffSeconds = (n: number, first: number) => Math.min(first * 2 ** Math.max(0, n - 1), 3600);

export class AutomationWorker implements DeliveryQueue {
  private readonly o: WorkerOptions;
  private sweeper?: NodeJS.Timeout;
  private started = false;

  constructor(o: WorkerOptions) {
    this.o = o;
  }

  private get log() {
    return this.o.logger;
  }
  private now() {
    return this.o.now?.() ?? new Date();
  }

  async enqueue(job: DeliveryJob, startAfterSeconds = 0): Promise<void> {
    await this.o.boss.send(AUTOMATIONS_QUEUE, job, {
      group: { id: `${job.workspace}:${job.hook}` },
      ...(startAfterSeconds > 0 ? { startAfter: Math.ceil(startAfterSeconds) } : {}),
    });
  }

  async start(): Promise<void> {
    const { boss } = this.o;
    const polling = this.o.pollingIntervalSeconds ?? 1;
    // pg-boss's own retries only for a job whose replica stopped mid-attempt (it expires, another takes it).
    // `notify`: a job sent wakes the workers at once (LISTEN/NOTIFY, when the boss listens: AUTOMATIONS_BOSS),
    // where a poll a second made an event wait up to a second (docs/benchmarks.md).
    const queue = { retryLimit: 5, retryDelay: 30, expireInSeconds: 120, notify: true };
    if (await boss.getQueue(AUTOMATIONS_QUEUE)) await boss.updateQueue(AUTOMATIONS_QUEUE, queue);
    else await boss.createQueue(AUTOMATIONS_QUEUE, queue);
    await boss.work<DeliveryJob>(
      AUTOMATIONS_QUEUE,
      {
        batchSize: 1,
        localConcurrency: this.o.concurrency ?? 8,
        localGroupConcurrency: ATTEMPTS_PER_HOOK,
        // The poll stays a second beside the notices: a retry's job is due later than it was sent.
        pollingIntervalSeconds: polling,
        notifyPollingIntervalSeconds: polling,
      },
      async (jobs) => {
        for (const job of jobs) await this.handle(job.data);
      },
    );
    this.started = true;
    await this.sweep(0);
    const every = this.o.sweepSeconds ?? 60;
    if (every > 0) {
      this.sweeper = setInterval(() => void this.sweep().catch(() => {}), every * 1000);
      this.sweeper.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.started) await this.o.boss.offWork(AUTOMATIONS_QUEUE, { wait: true }).catch(() => {});
    this.started = false;
  }

  /** Queues the pending deliveries that are due and held by nobody (each attempt is claimed: a second job does nothing). */
  async sweep(lateBySeconds = 30): Promise<number> {
    const now = this.now();
    const due = await pendingDeliveries(this.o.db, now, new Date(now.getTime() - lateBySeconds * 1000));
    for (const d of due) await this.enqueue(d);
    return due.length;
  }

  /** One job: its delivery claimed, sent once, its outcome kept (and the next attempt queued). */
  async handle(job: DeliveryJob): Promise<void> {
    // stores: the deliveries' worker runs every workspace's jobs: the job's own workspace's hooks
    const store = new AutomationStore(this.o.db, job.workspace);
    const now = this.now();
    const timeoutMs = this.o.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    const d = await store.claim(job.hook, job.eventId, now, new Date(now.getTime() + timeoutMs + 30_000));
    if (!d) return; // delivered, failed, not due yet, or another replica is sending it
    const where = { workspace: job.workspace, hook: job.hook, event: d.event, eventId: d.eventId };
    const hook = await store.get(job.hook);
    const keyring = this.o.keyring;
    if (!hook || !keyring) {
      await store.settle(job.hook, job.eventId, { state: "failed", detail: "the hook cannot be read", now });
      return;
    }
    let target: { url: string; secret: string | null };
    try {
      target = openHook(keyring, hook);
    } catch {
      await store.settle(job.hook, job.eventId, {
        state: "failed",
        detail: "its address does not open",
        now,
      });
      this.log?.warn(where, "an automation's address does not open (another secret key?)");
      return;
    }
    const event = JSON.parse(d.body) as SwitchboardEvent;
    const r = await attempt({ ...target, kind: hook.kind }, event, this.o.rules, now, timeoutMs);
    const after = this.now();
    if (r.kind === "delivered") {
      await store.settle(job.hook, job.eventId, {
        state: "delivered",
        detail: `HTTP ${r.status}`,
        now: after,
      });
      this.log?.info({ ...where, attempts: d.attempts }, "automation delivered");
      return;
    }
    if (r.kind === "refused" || after.getTime() - d.firstAt.getTime() >= RETRY_FOR_MS) {
      const detail = r.kind === "refused" ? r.detail : `${r.detail}; retried for 24 hours`;
      await store.settle(job.hook, job.eventId, { state: "failed", detail, now: after });
      this.log?.warn({ ...where, detail, attempts: d.attempts }, "automation delivery failed");
      return;
    }
    const delay =
      r.retryAfterMs !== undefined
        ? r.retryAfterMs / 1000
        : backoffSeconds(d.attempts, this.o.firstRetrySeconds ?? 10);
    const nextAt = new Date(after.getTime() + delay * 1000);
    await store.settle(job.hook, job.eventId, { state: "pending", detail: r.detail, now: after, nextAt });
    this.log?.info(
      { ...where, detail: r.detail, retryInSeconds: Math.ceil(delay) },
      "automation delivery retried",
    );
    await this.enqueue(job, delay);
  }
}
