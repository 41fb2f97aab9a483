// Schema `inbox`: the Slack channels that mirror customers' conversations
// (docs/inbox.md). One inbox per channel (its filter, its poll cursor, the
// lease of the process polling it); one thread per chat user per channel; one
// row per API message mirrored (the primary key makes two processes mirror it
// once); one row per thread reply sent to a customer (sent once, whatever
// Slack redelivers). Its own migration list (inbox/migrations.ts).
//
// InboxStore is the facade of src/store/inbox/, one file per concern: each
// method is its table's, documented there (inboxes.ts, routes.ts, threads.ts,
// mirrored.ts, replies.ts, desk.ts, snooze.ts, rating.ts, clocks.ts, away.ts; rows.ts: the records they answer).
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import { AwaySends } from "./inbox/away.ts";
import { Clocks } from "./inbox/clocks.ts";
import { Desk } from "./inbox/desk.ts";
import { Inboxes, workspacesWithInboxes } from "./inbox/inboxes.ts";
import { Mirrored } from "./inbox/mirrored.ts";
import { Ratings } from "./inbox/rating.ts";
import { Replies, settleSending } from "./inbox/replies.ts";
import { Routes } from "./inbox/routes.ts";
import type { SendingReply } from "./inbox/rows.ts";
import { Snoozes } from "./inbox/snooze.ts";
import { Threads } from "./inbox/threads.ts";

export type { AwayKey, AwayOutcome } from "./inbox/away.ts";
export {
  type Clock,
  type ClockEnd,
  type DeskEvent,
  type DueClock,
  type InboxTargets,
  WARN_SHARE,
} from "./inbox/clocks.ts";
export { INBOX_MIGRATIONS } from "./inbox/migrations.ts";
export { RATING_WINDOW_MS } from "./inbox/rating.ts";
export {
  type CardState,
  type DeskState,
  type Inbox,
  type InboxFilter,
  type InboxReplies,
  isSnoozed,
  type MirrorState,
  REPLY_WINDOW_MS,
  type SendingReply,
  type Thread,
  type ThreadDesk,
  type ThreadDue,
} from "./inbox/rows.ts";

export class InboxStore {
  readonly workspace: WorkspaceId;
  readonly #inboxes: Inboxes;
  readonly #routes: Routes;
  readonly #threads: Threads;
  readonly #mirrored: Mirrored;
  readonly #replies: Replies;
  readonly #desk: Desk;
  readonly #snoozes: Snoozes;
  readonly #ratings: Ratings;
  /** Reply targets, their clocks and the state changes the desk's report counts (issue 29 §2, §5). */
  readonly clocks: Clocks;
  /** The away message's claims, one per conversation and closed period, and their outcomes (issue 40 §1). */
  readonly away: AwaySends;

  /** One workspace's inboxes, threads and replies: every statement names the workspace. */
  constructor(db: Queryable, workspace: WorkspaceId) {
    this.workspace = workspace;
    this.#inboxes = new Inboxes(db, workspace);
    this.#routes = new Routes(db, workspace);
    this.#threads = new Threads(db, workspace);
    this.#mirrored = new Mirrored(db, workspace);
    this.#replies = new Replies(db, workspace);
    this.#desk = new Desk(db, workspace, this.#threads);
    this.#snoozes = new Snoozes(db, workspace);
    this.#ratings = new Ratings(db, workspace);
    this.clocks = new Clocks(db, workspace);
    this.away = new AwaySends(db, workspace);
  }

  // inboxes.ts

  setInbox(...a: Parameters<Inboxes["setInbox"]>) {
    return this.#inboxes.setInbox(...a);
  }

  setAway(...a: Parameters<Inboxes["setAway"]>) {
    return this.#inboxes.setAway(...a);
  }

  removeInbox(...a: Parameters<Inboxes["removeInbox"]>) {
    return this.#inboxes.removeInbox(...a);
  }

  inbox(...a: Parameters<Inboxes["inbox"]>) {
    return this.#inboxes.inbox(...a);
  }

  inboxes(...a: Parameters<Inboxes["inboxes"]>) {
    return this.#inboxes.inboxes(...a);
  }

  claimInbox(...a: Parameters<Inboxes["claimInbox"]>) {
    return this.#inboxes.claimInbox(...a);
  }

  polled(...a: Parameters<Inboxes["polled"]>) {
    return this.#inboxes.polled(...a);
  }

  renewLease(...a: Parameters<Inboxes["renewLease"]>) {
    return this.#inboxes.renewLease(...a);
  }

  release(...a: Parameters<Inboxes["release"]>) {
    return this.#inboxes.release(...a);
  }

  // routes.ts

  routeOf(...a: Parameters<Routes["routeOf"]>) {
    return this.#routes.routeOf(...a);
  }

  takeRoute(...a: Parameters<Routes["takeRoute"]>) {
    return this.#routes.takeRoute(...a);
  }

  // threads.ts

  thread(...a: Parameters<Threads["thread"]>) {
    return this.#threads.thread(...a);
  }

  threadByTs(...a: Parameters<Threads["threadByTs"]>) {
    return this.#threads.threadByTs(...a);
  }

  waiting(...a: Parameters<Threads["waiting"]>) {
    return this.#threads.waiting(...a);
  }

  ensureThread(...a: Parameters<Threads["ensureThread"]>) {
    return this.#threads.ensureThread(...a);
  }

  updateThread(...a: Parameters<Threads["updateThread"]>) {
    return this.#threads.updateThread(...a);
  }

  behindThreads(...a: Parameters<Threads["behindThreads"]>) {
    return this.#threads.behindThreads(...a);
  }

  claimCard(...a: Parameters<Threads["claimCard"]>) {
    return this.#threads.claimCard(...a);
  }

  releaseCard(...a: Parameters<Threads["releaseCard"]>) {
    return this.#threads.releaseCard(...a);
  }

  // mirrored.ts

  claimMessage(...a: Parameters<Mirrored["claimMessage"]>) {
    return this.#mirrored.claimMessage(...a);
  }

  mirrorState(...a: Parameters<Mirrored["mirrorState"]>) {
    return this.#mirrored.mirrorState(...a);
  }

  takeOverClaim(...a: Parameters<Mirrored["takeOverClaim"]>) {
    return this.#mirrored.takeOverClaim(...a);
  }

  mirroredTs(...a: Parameters<Mirrored["mirroredTs"]>) {
    return this.#mirrored.mirroredTs(...a);
  }

  unclaimMessage(...a: Parameters<Mirrored["unclaimMessage"]>) {
    return this.#mirrored.unclaimMessage(...a);
  }

  mirroredCount(...a: Parameters<Mirrored["mirroredCount"]>) {
    return this.#mirrored.mirroredCount(...a);
  }

  // replies.ts

  claimReply(...a: Parameters<Replies["claimReply"]>) {
    return this.#replies.claimReply(...a);
  }

  settleSendingReplies(...a: Parameters<Replies["settleSendingReplies"]>) {
    return this.#replies.settleSendingReplies(...a);
  }

  finishReply(...a: Parameters<Replies["finishReply"]>) {
    return this.#replies.finishReply(...a);
  }

  repliesSent(...a: Parameters<Replies["repliesSent"]>) {
    return this.#replies.repliesSent(...a);
  }

  // desk.ts

  assign(...a: Parameters<Desk["assign"]>) {
    return this.#desk.assign(...a);
  }

  unassign(...a: Parameters<Desk["unassign"]>) {
    return this.#desk.unassign(...a);
  }

  setDeskState(...a: Parameters<Desk["setDeskState"]>) {
    return this.#desk.setDeskState(...a);
  }

  customerWrote(...a: Parameters<Desk["customerWrote"]>) {
    return this.#desk.customerWrote(...a);
  }

  windowsClosed(...a: Parameters<Desk["windowsClosed"]>) {
    return this.#desk.windowsClosed(...a);
  }

  windowClosedShown(...a: Parameters<Desk["windowClosedShown"]>) {
    return this.#desk.windowClosedShown(...a);
  }

  desk(...a: Parameters<Desk["desk"]>) {
    return this.#desk.desk(...a);
  }

  // snooze.ts

  snooze(...a: Parameters<Snoozes["snooze"]>) {
    return this.#snoozes.snooze(...a);
  }

  unsnooze(...a: Parameters<Snoozes["unsnooze"]>) {
    return this.#snoozes.unsnooze(...a);
  }

  wakeDue(...a: Parameters<Snoozes["wakeDue"]>) {
    return this.#snoozes.wakeDue(...a);
  }

  // rating.ts

  ratingAsked(...a: Parameters<Ratings["ratingAsked"]>) {
    return this.#ratings.ratingAsked(...a);
  }

  rate(...a: Parameters<Ratings["rate"]>) {
    return this.#ratings.rate(...a);
  }

  /** The workspaces with an inbox (many-workspace mode: their pollers start with the process). */
  static workspacesWithInboxes(db: Queryable): Promise<WorkspaceId[]> {
    return workspacesWithInboxes(db);
  }

  /** settleSendingReplies of every workspace (the start), each reply with its `workspace`. */
  static settleSendingRepliesAll(db: Queryable, claimedBefore: Date): Promise<SendingReply[]> {
    return settleSending(db, claimedBefore, null);
  }
}
