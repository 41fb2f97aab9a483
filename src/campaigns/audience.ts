// Whom a campaign reaches, counted before anyone confirms a send (issue 28 §1):
// its groups' member counts and their opted-out members (`GET /contacts` with
// `groupId` and `optedOut=true`, a page of one read for its total), its
// contacts chosen one by one, within a read budget per prompt. A figure that
// may be off says which way: "at most" where groups may share people (each is
// counted in every group, the API sends once) or an opted-out count was not
// read; "at least" where a member count was not read. Never a false exact one.
// Campaigns Switchboard started lately (src/store/campaigns.ts) flag an
// audience that got another campaign in the last 24 hours, without a read.
import type { KnownBlock } from "@slack/types";
import { isApiError } from "../api/errors.ts";
import type { ApiRecord, Campaign, Group } from "../api/types.ts";
import { context, esc, num, section } from "../blocks/blocks.ts";
import { memberCount, nameOf, pick } from "../domain/records.ts";
import { UserError } from "../platform/errors.ts";
import type { Audience } from "../store/campaigns.ts";
import type { CampaignContext } from "./context.ts";

/** API reads a send prompt makes at most, the campaign and its template included. */
export const PROMPT_READS = 10;
/** How far back another campaign's start is flagged. */
export const RECENT_MS = 24 * 60 * 60 * 1000;

/** Reads left to spend; `take()` spends one, false when none is left. */
export class ReadBudget {
  left: number;
  constructor(left: number) {
    this.left = left;
  }
  take(): boolean {
    if (this.left <= 0) return false;
    this.left -= 1;
    return true;
  }
}

export interface GroupCount {
  id: number;
  name: string;
  /** Members (opted-out ones included); undefined: not read within the budget. */
  members?: number;
  /** Opted-out members; `optedOutExact` false: at least this many (not read, or a page without its total). */
  optedOut: number;
  optedOutExact: boolean;
}

export interface AudienceCount {
  groups: GroupCount[];
  /** Contacts chosen one by one. */
  contacts: number;
  contactsOptedOut: number;
  contactsOptedOutExact: boolean;
}

const idsOf = (v: unknown): number[] | undefined =>
  Array.isArray(v) ? [...new Set(v.map(Number).filter((n) => Number.isInteger(n) && n > 0))] : undefined;

/**
 * The campaign's audience: its record's when the record shows one, else the
 * one Switchboard recorded when it created it; `undefined`: not known (the
 * record shows none and Switchboard did not create it). An empty audience
 * the record shows is "none".
 */
export async function audienceOf(
  ctx: Pick<CampaignContext, "api" | "audiences">,
  id: number,
  c: Campaign,
): Promise<Audience | undefined> {
  const groupIds = idsOf(pick(c, "groupIds", "group_ids"));
  const contactIds = idsOf(pick(c, "contactIds", "contact_ids"));
  const shown = { groupIds: groupIds ?? [], contactIds: contactIds ?? [] };
  if (shown.groupIds.length || shown.contactIds.length) return shown;
  const kept = await ctx.audiences?.get(id).catch(() => undefined);
  // A campaign Switchboard created keeps the audience it was given, an empty one included (issue 37 §1).
  if (kept && (kept.created || kept.groupIds.length || kept.contactIds.length))
    return { groupIds: kept.groupIds, contactIds: kept.contactIds };
  return groupIds || contactIds ? shown : undefined;
}

/** Reads a list page's total, or a lower bound when the page gives none. */
const totalOf = (page: { total?: number; items: unknown[] }): { n: number; exact: boolean } =>
  page.total !== undefined
    ? { n: page.total, exact: true }
    : { n: page.items.length, exact: !page.items.length };

const isOptedOut = (c: ApiRecord) => {
  const v = pick(c, "opted_out", "optedOut", "is_opted_out");
  return v === true || v === "true";
};

/**
 * Counts an audience within `budget`. Throws a refusal, in words, when one of
 * its groups no longer exists.
 */
export async function countAudience(
  ctx: Pick<CampaignContext, "api" | "audiences">,
  c: Campaign,
  audience: Audience,
  budget: ReadBudget,
): Promise<AudienceCount> {
  const groups: GroupCount[] = [];
  if (audience.groupIds.length) {
    // One read names and counts every group; a group the list lacks is read by itself.
    const listed = budget.take()
      ? await ctx.api.listGroups({ lane: "interactive" }).then((p) => p.items)
      : ([] as Group[]);
    const byId = new Map(listed.map((g) => [Number(g.id), g]));
    for (const gid of audience.groupIds) {
      let g = byId.get(gid);
      if (!g && budget.take()) {
        try {
          g = await ctx.api.getGroup(gid, { lane: "interactive" });
        } catch (err) {
          if (isApiError(err) && err.kind === "not_found") throw groupGone(c, gid);
          throw err;
        }
      }
      const n = g ? Number(memberCount(g)) : Number.NaN;
      groups.push({
        id: gid,
        name: g ? nameOf(g, `group ${gid}`) : `group ${gid}`,
        members: Number.isInteger(n) && n >= 0 ? n : undefined,
        optedOut: 0,
        optedOutExact: false,
      });
    }
    // A group without a member count: its members' list, a page of one, says it.
    for (const g of groups) {
      if (g.members !== undefined || !budget.take()) continue;
      const t = totalOf(await ctx.api.listContacts({ groupId: g.id, limit: 1 }, { lane: "interactive" }));
      if (t.exact) g.members = t.n;
    }
    for (const g of groups) {
      if (g.members === 0) {
        g.optedOutExact = true;
        continue;
      }
      if (!budget.take()) continue;
      const t = totalOf(
        await ctx.api.listContacts({ groupId: g.id, optedOut: true, limit: 1 }, { lane: "interactive" }),
      );
      g.optedOut = t.n;
      g.optedOutExact = t.exact;
    }
  }
  const chosen = audience.contactIds;
  let contactsOptedOut = 0;
  let contactsOptedOutExact = chosen.length === 0;
  if (chosen.length && budget.take()) {
    // The opted-out contacts, a page of 100: all of them in most accounts.
    const page = await ctx.api.listContacts({ optedOut: true, limit: 100 }, { lane: "interactive" });
    const out = new Set(page.items.map((x) => Number(x.id)));
    const whole = page.total !== undefined ? page.total <= page.items.length : page.items.length < 100;
    let unsure = chosen.filter((id) => !out.has(id));
    contactsOptedOut = chosen.length - unsure.length;
    if (!whole) {
      // The rest one by one, as far as the budget goes.
      const reads = unsure.filter(() => budget.take());
      const read = await Promise.all(
        reads.map((id) =>
          ctx.api.getContact(id, { lane: "interactive" }).then(
            (x) => [id, isOptedOut(x)] as const,
            () => [id, undefined] as const,
          ),
        ),
      );
      for (const [id, o] of read) {
        if (o === undefined) continue;
        if (o) contactsOptedOut += 1;
        unsure = unsure.filter((u) => u !== id);
      }
    } else unsure = [];
    contactsOptedOutExact = unsure.length === 0;
  }
  return { groups, contacts: chosen.length, contactsOptedOut, contactsOptedOutExact };
}

// state: owned: keyed by the command's context, gone with it.
/** The counts made per command (its context) and campaign: one count serves a prompt's every check. */
const COUNTED = new WeakMap<object, Map<number, Promise<AudienceCount>>>();

/**
 * `countAudience` once per `key` (the command's context) and campaign: the
 * approval check and the prompt read the same count, within the budget of
 * whichever asks first.
 */
export function countAudienceOnce(
  key: object,
  ctx: Pick<CampaignContext, "api" | "audiences">,
  id: number,
  c: Campaign,
  audience: Audience,
  budget: ReadBudget,
): Promise<AudienceCount> {
  const counts = COUNTED.get(key) ?? new Map<number, Promise<AudienceCount>>();
  COUNTED.set(key, counts);
  const counted = counts.get(id) ?? countAudience(ctx, c, audience, budget);
  counts.set(id, counted);
  return counted;
}

/** "*Spring sale*'s group #7 no longer exists: …": a send refused before the prompt. */
export function groupGone(c: Campaign, groupId: number): UserError {
  const id = Number(pick(c, "id"));
  return new UserError(
    `*${esc(nameOf(c, `Campaign ${id}`))}*'s group #${groupId} no longer exists: the campaign cannot be counted or sent as it is. Create it again with the groups it should reach.`,
    false,
    [
      { text: "New campaign", line: "campaign new", style: "primary" },
      ...(Number.isInteger(id) ? [{ text: "Open", line: `campaign ${id}` }] : []),
    ],
  );
}

const people = (n: number) => `${num(n)} ${n === 1 ? "person" : "people"}`;

/**
 * The audience in one line: "At most 1,215 people: *Newsletter* (1,180),
 * *VIP customers* (64), 3 contacts chosen one by one · 32 have opted out and
 * are left out". The headline counts the people reached, the opted-out left out.
 */
export function audienceLine(a: AudienceCount): string {
  const sources = a.groups.length + (a.contacts ? 1 : 0);
  const counted = a.groups.every((g) => g.members !== undefined);
  const optedOut = a.groups.reduce((n, g) => n + g.optedOut, 0) + a.contactsOptedOut;
  const optedOutExact = a.groups.every((g) => g.optedOutExact) && a.contactsOptedOutExact;
  const chosen = a.groups.reduce((n, g) => n + (g.members ?? 0), 0) + a.contacts;
  let headline: string;
  if (counted) {
    const reach = Math.max(0, chosen - optedOut);
    // Several groups may share people, and an opted-out count not read may be higher: an upper bound.
    headline = sources <= 1 && optedOutExact ? capital(people(reach)) : `At most ${people(reach)}`;
  } else {
    // A group not counted: at least the largest part counted exactly.
    const parts = [
      ...a.groups
        .filter((g) => g.members !== undefined && g.optedOutExact)
        .map((g) => g.members! - g.optedOut),
      ...(a.contacts && a.contactsOptedOutExact ? [a.contacts - a.contactsOptedOut] : []),
    ];
    const least = Math.max(0, ...parts);
    headline = least > 0 ? `At least ${people(least)}` : "Not counted (too many groups to read now)";
  }
  const list = [
    ...a.groups.map(
      (g) => `*${esc(g.name)}* (${g.members !== undefined ? num(g.members) : "not counted now"})`,
    ),
    ...(a.contacts ? [`${num(a.contacts)} contact${a.contacts === 1 ? "" : "s"} chosen one by one`] : []),
  ].join(", ");
  const out =
    optedOut === 0 && optedOutExact
      ? ""
      : ` · ${optedOutExact ? "" : "at least "}${num(optedOut)} ${optedOut === 1 && optedOutExact ? "has" : "have"} opted out and ${optedOut === 1 && optedOutExact ? "is" : "are"} left out`;
  return `${headline}: ${list}${out}`;
}

const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** "3 hours ago", "25 minutes ago", "just now". */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? "" : "s"} ago`;
  const hours = Math.floor(minutes / 60);
  return `${hours} hour${hours === 1 ? "" : "s"} ago`;
}

/**
 * "*Newsletter* also got *Spring sale* 3 hours ago": the parts of the audience
 * a campaign Switchboard started in the last 24 hours also reached. No read.
 */
export async function recentOverlaps(
  ctx: CampaignContext,
  id: number,
  audience: Audience,
  groupNames: Map<number, string>,
  now = new Date(),
): Promise<string[]> {
  const recent =
    (await ctx.audiences?.startedSince(new Date(now.getTime() - RECENT_MS), id).catch(() => [])) ?? [];
  const lines: string[] = [];
  for (const r of recent) {
    const when = ago(now.getTime() - (r.startedAt?.getTime() ?? now.getTime()));
    const other = `*${esc(r.name || `Campaign ${r.campaignId}`)}*`;
    const groups = audience.groupIds.filter((g) => r.groupIds.includes(g));
    const contacts = audience.contactIds.filter((x) => r.contactIds.includes(x)).length;
    const named = groups.map((g) => `*${esc(groupNames.get(g) ?? `group ${g}`)}*`);
    if (named.length) lines.push(`${named.join(", ")} also got ${other} ${when}`);
    if (contacts)
      lines.push(
        `${contacts === 1 ? "1 contact" : `${num(contacts)} contacts`} chosen one by one also got ${other} ${when}`,
      );
  }
  return lines.slice(0, 5);
}

/** The words of a campaign with no audience (the API has no campaign update: it is made again). */
export const noAudienceWords = (name: string) =>
  `${name} has no audience: it names no group and no contact, so there is nobody to send it to. Create it again with a group or contacts.`;

/** What the send prompt shows of the audience: blocks and the fallback text. */
export interface AudienceView {
  text: string;
  blocks: KnownBlock[];
}

/**
 * The send prompt's audience: counted within what is left of the prompt's
 * reads (`readsSoFar` spent already). Throws a refusal, in words, for a
 * campaign with no audience or whose group no longer exists.
 */
export async function audienceForSend(
  ctx: CampaignContext,
  id: number,
  c: Campaign,
  readsSoFar: number,
): Promise<AudienceView> {
  const audience = await audienceOf(ctx, id, c);
  if (!audience) {
    const text =
      "Audience not known to Switchboard: the campaign was made elsewhere and its record names no group or contact.";
    return { text, blocks: [section(`:busts_in_silhouette: ${text}`)] };
  }
  if (!audience.groupIds.length && !audience.contactIds.length) {
    throw new UserError(noAudienceWords(`*${esc(nameOf(c, `Campaign ${id}`))}*`), false, [
      { text: "New campaign", line: "campaign new", style: "primary" },
      { text: "Open", line: `campaign ${id}` },
    ]);
  }
  const counted = await countAudienceOnce(
    ctx,
    ctx,
    id,
    c,
    audience,
    new ReadBudget(PROMPT_READS - readsSoFar),
  );
  const line = audienceLine(counted);
  const overlaps = await recentOverlaps(
    ctx,
    id,
    audience,
    new Map(counted.groups.map((g) => [g.id, g.name])),
  );
  const blocks: KnownBlock[] = [section(`:busts_in_silhouette: ${line}`)];
  if (overlaps.length) blocks.push(section(overlaps.map((l) => `:warning: ${l}`).join("\n")));
  if (counted.groups.length + (counted.contacts ? 1 : 0) > 1)
    blocks.push(context("A person in several of these is counted in each, and gets the message once."));
  return { text: [line, ...overlaps].join(". "), blocks };
}

/** The draft's size for its card ("At most 70 people: …"), within `reads`; empty when not known. */
export async function audienceSummary(
  ctx: CampaignContext,
  id: number,
  c: Campaign,
  reads: number,
): Promise<string> {
  const audience = await audienceOf(ctx, id, c);
  if (!audience || (!audience.groupIds.length && !audience.contactIds.length)) return "";
  return audienceLine(await countAudience(ctx, c, audience, new ReadBudget(reads)));
}

/** Keeps the audience of a campaign Switchboard created (the overlap needs it, a record may not show it). */
export async function recordCreated(ctx: CampaignContext, c: Campaign, audience: Audience): Promise<void> {
  const id = Number(pick(c, "id"));
  if (!Number.isInteger(id)) return;
  await ctx.audiences?.record(id, nameOf(c), audience).catch(() => undefined);
}
