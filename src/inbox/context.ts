// What the parts of the inbox engine share while a pass runs: the store, the
// API, the front end's I/O, the clock, the lease, the inboxes as the pass
// found them and the API reads counted for the inbox being polled.
import type { MessagingApi } from "../api/types.ts";
import type { Inbox, InboxStore } from "../store/inbox.ts";
import type { InboxIo, InboxLogger } from "./io.ts";
import type { Lease } from "./lease.ts";

export interface PassContext {
  store: InboxStore;
  client: MessagingApi;
  io: InboxIo;
  log: InboxLogger;
  now: () => Date;
  lease: Lease;
  /** INBOX_LOOKBACK_HOURS in ms: how far back a poll catches up after downtime. */
  lookbackMs: number;
  /** The inboxes as this pass found them: a conversation goes to one (routeOf). */
  inboxes: Inbox[];
  /** API reads made for the inbox being polled. */
  reads: number;
  /** Counts one API read. */
  read<T>(p: Promise<T>): Promise<T>;
}
