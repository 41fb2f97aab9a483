// What the reports persist: a schedule, the run of one slot, the figures of a
// campaign at a slot. A leaf file: the store saves these, the reports make and
// read them, and neither imports the other for their shapes.
import type { RecipientStatus } from "../api/schemas.ts";
import type { WorkspaceId } from "./workspace.ts";

/** Recipients of a campaign per delivery status. */
export type Counts = Record<RecipientStatus, number>;

export interface ScheduleRow {
  /** The store's own key (runs, figures, the scheduler's jobs): never shown to people. */
  id: number;
  /** What people see and type (`Report #2`, `/sb report delete 2`): counted within its workspace, never reused. */
  number: number;
  /** The workspace the schedule belongs to (its reports post with that workspace's key and token). */
  workspace: WorkspaceId;
  channel: string;
  /** `"42"`, `"running"` or `"all"`. */
  target: string;
  cron: string;
  tz: string;
  description: string;
  createdBy: string;
  createdAt: Date;
  /** Slot of the last report posted. */
  lastRunAt: Date | null;
  lastPostedAt: Date | null;
}

/** What creating a schedule gives; the rest of a ScheduleRow the store fills in. */
export type NewSchedule = Pick<
  ScheduleRow,
  "channel" | "target" | "cron" | "tz" | "description" | "createdBy"
>;

export type RunState = "claimed" | "posting" | "posted" | "failed" | "uncertain";

export interface RunRow {
  scheduleId: number;
  workspace: WorkspaceId;
  slotAt: Date;
  state: RunState;
  late: boolean;
  attempts: number;
  partsPosted: number;
  claimedBy: string | null;
  leaseUntil: Date | null;
  error: string | null;
  messageRefs: string[];
  postedAt: Date | null;
}

export interface Snapshot {
  campaignId: number;
  counts: Counts;
  slotAt: Date;
  takenAt: Date;
}
