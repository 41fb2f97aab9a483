// An inbox's lease: with two processes on one database, an inbox is polled by
// the process holding its lease, renewed before each conversation and each
// post while its pass runs. A pass that finds its lease taken stops
// (LeaseLost): the other process goes on from what is stored.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { SwitchboardError } from "../platform/errors.ts";
import type { Inbox, InboxStore } from "../store/inbox.ts";

/** This process no longer holds the inbox's lease: its pass of that inbox stops. */
export class LeaseLost extends SwitchboardError {
  readonly code = "inbox_lease_lost";
}

/** This process among others on the database: host, pid and a few random bytes. */
export const newWorkerId = (): string => `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;

export interface LeaseOptions {
  store: InboxStore;
  workerId: string;
  now: () => Date;
  /** The pace of the polls, in ms. */
  pollMs: number;
  /** How long a lease outlives the poll it was taken for, in ms. */
  leaseMs: number;
}

export class Lease {
  readonly workerId: string;
  private readonly opts: LeaseOptions;

  constructor(opts: LeaseOptions) {
    this.opts = opts;
    this.workerId = opts.workerId;
  }

  /** The end of a lease taken or renewed now: past the next poll. */
  end(): Date {
    return new Date(this.opts.now().getTime() + this.opts.pollMs + this.opts.leaseMs);
  }

  /** The inbox, when this process holds its lease or could take it. */
  claim(channel: string): Promise<Inbox | undefined> {
    const at = this.opts.now();
    return this.opts.store.claimInbox(channel, this.workerId, at, this.end());
  }

  /** Before each conversation and each post: the lease outlives the pass, or the pass stops. */
  async keep(channel: string): Promise<void> {
    if (!(await this.opts.store.renewLease(channel, this.workerId, this.end())))
      throw new LeaseLost(`the inbox of ${channel} is polled by another process now`);
  }

  /** Every lease of this process given up (at a stop): another process may poll at once. */
  release(): Promise<void> {
    return this.opts.store.release(this.workerId);
  }
}
