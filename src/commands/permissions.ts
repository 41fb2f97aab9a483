// Who may run what. Reads are open; writes need SWITCHBOARD_WRITERS (empty:
// everyone); broadcasts (campaign send and cancel) need
// SWITCHBOARD_BROADCASTERS (empty: the same people as writes). Entries are
// Slack user ids (U…/W…) or user group ids (S…), whose members come from an
// injected resolver (the Slack front end uses usergroups.users.list).
import { mention } from "../domain/actor.ts";
import type { Logger } from "../platform/log.ts";
import type { Access, Actor } from "./types.ts";

export type ResolveGroupMembers = (groupId: string) => Promise<string[]>;

export interface PermissionOptions {
  writers?: string[];
  broadcasters?: string[];
  resolveGroupMembers?: ResolveGroupMembers;
  /** How long a group's members are trusted before asking again. */
  groupCacheMs?: number;
  logger?: Logger;
}

export type Verdict = { ok: true } | { ok: false; allowed: string[] };

export { mention };

export class Permissions {
  private readonly writers: string[];
  private readonly broadcasters: string[];
  private readonly cache = new Map<string, { until: number; members: Promise<string[]> }>();

  private readonly opts: PermissionOptions;
  constructor(opts: PermissionOptions = {}) {
    this.opts = opts;
    this.writers = opts.writers ?? [];
    this.broadcasters = opts.broadcasters?.length ? opts.broadcasters : this.writers;
  }

  listFor(access: Access): string[] {
    return access === "read" ? [] : access === "write" ? this.writers : this.broadcasters;
  }

  async check(actor: Actor, access: Access): Promise<Verdict> {
    // The shell runs on the operator's own machine with the operator's key.
    if (actor.via === "shell") return { ok: true };
    const list = this.listFor(access);
    if (list.length === 0) return { ok: true };
    if (list.includes(actor.userId)) return { ok: true };
    for (const entry of list) {
      if (!entry.startsWith("S")) continue;
      const members = await this.members(entry);
      if (members.includes(actor.userId)) return { ok: true };
    }
    return { ok: false, allowed: list };
  }

  private async members(groupId: string): Promise<string[]> {
    const resolve = this.opts.resolveGroupMembers;
    if (!resolve) return [];
    const now = Date.now();
    const hit = this.cache.get(groupId);
    if (hit && hit.until > now) return hit.members;
    const members = resolve(groupId);
    this.cache.set(groupId, { until: now + (this.opts.groupCacheMs ?? 5 * 60_000), members });
    try {
      return await members;
    } catch (err) {
      // A failed lookup is not cached: the next command asks again.
      this.cache.delete(groupId);
      this.opts.logger?.warn({ groupId, err: String(err) }, "could not read the members of a user group");
      return [];
    }
  }
}
