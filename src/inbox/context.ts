// What the parts of the inbox engine share while a pass runs: the store, the
// API, the front end's I/O, the clock, the lease, the inboxes as the pass
// found them and the API reads counted for the inbox being polled.
import type { MessagingApi } from "../api/types.ts";
import type { WorkClock } from "../domain/business-hours.ts";
import type { CardMarks } from "../store/card-marks.ts";
import type { Inbox, InboxStore } from "../store/inbox.ts";
import type { OwnSends } from "../store/own-sends.ts";
import type { AwayPort, InboxEvent, InboxIo, InboxLogger } from "./io.ts";
import type { Lease } from "./lease.ts";

export interface PassContext {
  store: InboxStore;
  /** The messages Switchboard sent itself: shown by who sent them, not as sent from elsewhere. */
  ownSends: OwnSends;
  /** "The card shows the window closed", taken by whoever draws it so first. */
  marks: CardMarks;
  client: MessagingApi;
  io: InboxIo;
  log: InboxLogger;
  /** An event for the workspace's automations (never throws: a failure is logged). */
  told(e: InboxEvent): Promise<void>;
  now: () => Date;
  /** The workspace's away message and what sending it needs (issue 40 §1); unset: none is sent. */
  away?: AwayPort;
  /** The workspace's business hours in its zone, as now set (reply targets count in them); undefined: around the clock. */
  workClock: () => WorkClock | undefined;
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
