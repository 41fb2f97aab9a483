// Slack redelivers an event when it got no 200 within 3 s (X-Slack-Retry-Num);
// each event_id is handled once. A memory set answers the common case; the
// store (schema `slack`) keeps it true across restarts and between processes.
import type { WorkspaceId } from "../../domain/workspace.ts";
import type { Db } from "../../store/db.ts";
import { SeenEvents } from "../../store/events.ts";

export { type EventStore, eventsOf, type WorkspaceEvents } from "./workspace-events.ts";

import type { EventStore, WorkspaceEvents } from "./workspace-events.ts";

/** The workspace of the signatures' rows: none (a request is not read yet when its signature is claimed). */
export const SIGNATURE_WORKSPACE: WorkspaceId = "";
const SIG = "sig:";
/**
 * How long a signature must be remembered: Switchboard takes a request only within 5 minutes of its
 * timestamp either side (request-time.ts), so a signature cannot be used again more than 10 minutes
 * after it was first seen; a minute more for clocks.
 */
export const SIGNATURE_TTL_MS = 11 * 60_000;

/**
 * The signatures of the last SIGNATURE_TTL_MS in memory, oldest first (Maps keep insertion order). Bounded:
 * when more than `max` arrive within the window, the oldest are dropped and `complete()` says no until the
 * window has passed since the last drop (the store must then be asked).
 */
export class SignatureMemory {
  private readonly at = new Map<string, number>();
  private droppedAt = Number.NEGATIVE_INFINITY;
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;
  constructor(opts: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    this.ttlMs = opts.ttlMs ?? SIGNATURE_TTL_MS;
    // ≈150 bytes each: 100,000 (150 requests a second for 11 minutes) cost ~15 MB at most.
    this.max = opts.max ?? 100_000;
    this.now = opts.now ?? Date.now;
  }

  /** Whether every signature of the window is still here (none dropped for room within it). */
  complete(): boolean {
    return this.now() - this.droppedAt >= this.ttlMs;
  }

  /** True when the signature was not in the window (it is now), false for a repeat. */
  claim(signature: string, at = this.now()): boolean {
    const now = this.now();
    for (const [key, seenAt] of this.at) {
      if (now - seenAt < this.ttlMs) break;
      this.at.delete(key);
    }
    const seenAt = this.at.get(signature);
    if (seenAt !== undefined && now - seenAt < this.ttlMs) return false;
    this.at.set(signature, at);
    while (this.at.size > this.max) {
      const oldest = this.at.keys().next().value as string;
      this.at.delete(oldest);
      this.droppedAt = now;
    }
    return true;
  }

  get size(): number {
    return this.at.size;
  }

  /** The signatures of the window, oldest first. */
  keys(): string[] {
    return [...this.at.keys()];
  }
}

export class MemoryEventStore implements EventStore {
  private readonly ids = new Map<string, number>();

  private readonly ttlMs: number;
  private readonly max: number;
  constructor(ttlMs = 60 * 60_000, max = 10_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  private readonly signatures = new SignatureMemory();

  async claim(eventId: string): Promise<boolean> {
    return this.claimSync(eventId);
  }

  /** One process, no database: memory is the whole truth. */
  claimSignature(signature: string): boolean {
    return this.signatures.claim(signature);
  }

  /** Memory serves one process of one workspace (no database): the id alone. */
  async seen(eventId: string): Promise<boolean> {
    const at = this.ids.get(eventId);
    return at !== undefined && Date.now() - at < this.ttlMs;
  }

  claimSync(eventId: string): boolean {
    const now = Date.now();
    const at = this.ids.get(eventId);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.ids.set(eventId, now);
    if (this.ids.size > this.max) {
      // Maps iterate in insertion order: drop the oldest.
      for (const key of this.ids.keys()) {
        this.ids.delete(key);
        if (this.ids.size <= this.max) break;
      }
    }
    return true;
  }
}

/** How far Slack's clock and this process's may differ (the embedded database's start rule below). */
export const CLOCK_SKEW_MS = 5_000;

/**
 * The memory set in front of the store's table (src/store/events.ts).
 *
 * Signatures: on PostgreSQL each is claimed in the table before the request is served, so a replay is
 * refused by every replica. The embedded database serves one process, so memory answers at once, with no
 * write on the thread that acks: a statement there each second showed in the acks' p99
 * (docs/benchmarks.md). Across a restart: a graceful stop writes the window's signatures in one go and the
 * next start loads them; after a kill -9 (memory lost), a request signed before the new process started
 * (less CLOCK_SKEW_MS) is refused, since it may be one the killed process served. Slack never sends a
 * command or a click again by itself, and its event retries (X-Slack-Retry-Num) are not checked here.
 */
export async function createDbEventStore(db: Db, opts: { now?: () => number } = {}): Promise<EventStore> {
  const seen = await SeenEvents.open(db);
  const memory = new MemoryEventStore();
  const store: EventStore = {
    async claim(eventId, workspace) {
      return memory.claimSync(eventId) && seen.claim(eventId, workspace);
    },
    seen: (eventId, workspace) => seen.seen(eventId, workspace),
    claimSignature: (signature) => seen.claim(`${SIG}${signature}`, SIGNATURE_WORKSPACE),
  };
  if (db.kind !== "pglite") return store;

  const now = opts.now ?? Date.now;
  const startedAt = now();
  const signatures = new SignatureMemory({ now });
  for (const row of await seen.recent(SIGNATURE_WORKSPACE, SIG, SIGNATURE_TTL_MS))
    signatures.claim(row.id.slice(SIG.length), row.at);
  store.flush = async () => {
    const ids = signatures.keys().map((k) => `${SIG}${k}`);
    for (let i = 0; i < ids.length; i += 1000)
      await seen.claimAll(ids.slice(i, i + 1000), SIGNATURE_WORKSPACE).catch(() => {});
  };
  store.claimSignature = (signature, timestampS) => {
    if (!signatures.complete()) {
      // More signatures than memory keeps came within the window: the table decides (and keeps this one).
      signatures.claim(signature);
      return seen.claim(`${SIG}${signature}`, SIGNATURE_WORKSPACE);
    }
    if (!signatures.claim(signature)) return false;
    return timestampS === undefined || timestampS * 1000 >= startedAt - CLOCK_SKEW_MS;
  };
  return store;
}

/** A form's view and the channel it was opened from (a request's own: Slack said it), kept with the view. */
const formChannelKey = (viewId: string, channel: string) => `form-channel:${viewId}:${channel}`;

/** Keeps the channel a form was opened from, with its view: a submission's outcome may go there. */
export async function keepFormChannel(
  events: WorkspaceEvents,
  viewId: string | undefined,
  channel: string | undefined,
): Promise<void> {
  if (viewId && channel) await events.claim(formChannelKey(viewId, channel));
}

/**
 * The channel a submitted form's outcome may go to: the one its metadata
 * names only when it was kept with this view in this workspace when opened
 * (keepFormChannel); else none (the person's DM). A channel of another
 * workspace in a forged private_metadata is never posted to.
 */
export async function formChannel(
  events: WorkspaceEvents,
  viewId: string,
  channel: string | undefined,
): Promise<string | undefined> {
  if (!channel) return undefined;
  // The channel is kept just after views.open answers: a submission can race that write (a busy process, or
  // another replica's). Looked at again for up to a second before it is taken as not kept (the outcome by DM).
  for (let tries = 0; ; tries++) {
    if (await events.seen(formChannelKey(viewId, channel))) return channel;
    if (tries >= 4) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
}
