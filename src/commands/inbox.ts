// What `/sb inbox` needs beyond the API: the inboxes in the store and, in
// Slack, a way to be in the channel (the front end supplies it; the shell
// has none). See docs/inbox.md.
import type { Actor } from "../domain/actor.ts";
import type { AwayRule } from "../domain/away.ts";
import type { WorkClock } from "../domain/business-hours.ts";
import type { AuditEntry } from "../store/audit.ts";
import type { CardMarks } from "../store/card-marks.ts";
import type { InboxStore } from "../store/inbox.ts";
import type { OwnSends } from "../store/own-sends.ts";
import type { SavedReplies } from "../store/saved-replies.ts";

/**
 * The bot and a channel: `member` (already in it), `joined` (a public channel
 * it just joined), `invite` (private and not in it: someone must invite it),
 * `not_found`, or `unknown` (Slack did not say).
 */
export type JoinOutcome = "member" | "joined" | "invite" | "not_found" | "unknown";

export interface InboxDeps {
  store: InboxStore;
  /** The messages Switchboard sent (`send`, the send form, thread replies): the inbox shows who sent them. */
  ownSends: OwnSends;
  /** "The card shows the window closed", taken by whoever draws it so first (the desk's redraw, the poller). */
  marks: CardMarks;
  /** The workspace's saved replies (`/sb replies`, `/sb reply add|edit|delete`). */
  savedReplies: SavedReplies;
  /** Slack: be in the channel (conversations.join for a public one). Absent in the shell. */
  join?: (channel: string) => Promise<JoinOutcome>;
  /** Slack: the poller, to poll at once after an inbox is turned on. */
  wake?: () => void;
  /** Slack: redraws a thread's card after its desk changed (assigned, resolved, reopened). */
  redraw?: (channel: string, chatUserId: number) => Promise<void>;
  /** Slack: a person's time zone (their profile), for a snooze until "tomorrow 9:00". Else UTC. */
  userTz?: (actor: Actor) => Promise<string | undefined>;
  /** The desk's clock (tests move it by hand); else the real one. */
  now?: () => Date;
  /**
   * The workspace's business hours in its zone, as set now (reply targets
   * count in them: issue 29 §2); undefined: around the clock.
   */
  workClock?: () => WorkClock | undefined;
  /** The workspace's away message as set now (issue 40 §1); undefined: none. */
  away?: () => AwayRule | undefined;
  /** An audit row of the inbox's own work (the away message sent): recorded, then told to the workspace's listeners. */
  audit?: (entry: AuditEntry) => Promise<void>;
}
