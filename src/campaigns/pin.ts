// What an approval pins (issue 37 §2): the campaign as its approvers saw it —
// the template (id, name, language), its placeholders' values, the audience
// (groups, contacts, the count shown), the channel — and, at the send, what
// differs from the campaign as it is now, in words. What the campaign's record
// does not show cannot be compared: `unchecked` names it (the approval card
// says so). Pure: the reads are the caller's.
import type { ApiRecord, Campaign } from "../api/types.ts";
import { esc, num } from "../blocks/blocks.ts";
import { pick, show } from "../domain/records.ts";
import type { ApprovalPin } from "../store/approvals.ts";
import type { Audience } from "../store/campaigns.ts";

/** A changed audience beyond this share of the count approved asks again. */
export const COUNT_TOLERANCE = 0.1;

const idsOf = (v: unknown): number[] | undefined =>
  Array.isArray(v)
    ? [...new Set(v.map(Number).filter((n) => Number.isInteger(n) && n > 0))].sort((a, b) => a - b)
    : undefined;

const posId = (v: unknown): number | undefined => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

function valuesOf(c: Campaign): Record<string, string> | undefined {
  const v = pick(c, "templateParameters", "template_parameters");
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) return undefined;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
}

/**
 * The campaign as it stands: `c` its record, `t` its template (when read),
 * `audience` the one Switchboard knows (its record's, else the one it kept),
 * `reach` the people counted.
 */
export function pinOf(
  c: Campaign,
  t: ApiRecord | undefined,
  audience: Audience | undefined,
  reach: number | undefined,
): ApprovalPin {
  const templateId = posId(pick(c, "templateId", "template_id"));
  const values = valuesOf(c);
  const groupIds = idsOf(pick(c, "groupIds", "group_ids")) ?? (audience && idsOf(audience.groupIds));
  const contactIds = idsOf(pick(c, "contactIds", "contact_ids")) ?? (audience && idsOf(audience.contactIds));
  const channelId = posId(pick(c, "integrationId", "integration_id"));
  const name = t ? show(pick(t, "name") ?? "") : "";
  const language = t ? show(pick(t, "language", "lang") ?? "") : "";
  return {
    ...(templateId !== undefined
      ? { template: { id: templateId, ...(name ? { name } : {}), ...(language ? { language } : {}) } }
      : {}),
    ...(values ? { values } : {}),
    ...(groupIds ? { groupIds } : {}),
    ...(contactIds ? { contactIds } : {}),
    ...(reach !== undefined ? { reach } : {}),
    ...(channelId !== undefined ? { channelId } : {}),
  };
}

/** What the approval cannot check at the send: the parts the record did not show (words, for the card). */
export function unchecked(p: ApprovalPin): string[] {
  const out: string[] = [];
  if (!p.template) out.push("the template");
  if (!p.values) out.push("the placeholders' values");
  if (!p.groupIds && !p.contactIds) out.push("the groups and contacts");
  if (p.reach === undefined) out.push("the number of people");
  if (p.channelId === undefined) out.push("the channel");
  return out;
}

const templateWords = (t: NonNullable<ApprovalPin["template"]>) =>
  `*${esc(t.name ?? `template #${t.id}`)}*${t.language ? ` (${esc(t.language)})` : ""}`;

const listWords = (what: string, ids: number[]) =>
  `${what}${ids.length === 1 ? "" : "s"} ${ids.map((id) => `#${id}`).join(", ")}`;

/** How `now` differs from what was approved, each in words; empty: the same, as far as both show. */
export function pinChanges(approved: ApprovalPin, now: ApprovalPin): string[] {
  const out: string[] = [];
  if (approved.template && now.template) {
    if (approved.template.id !== now.template.id)
      out.push(
        `the template is now ${templateWords(now.template)}, not the approved ${templateWords(approved.template)}`,
      );
    else if (
      approved.template.language &&
      now.template.language &&
      approved.template.language !== now.template.language
    )
      out.push(
        `the template's language is now ${esc(now.template.language)}, not ${esc(approved.template.language)}`,
      );
  } else if (approved.template && !now.template) out.push("the campaign no longer names its template");
  if (approved.values && now.values) {
    const keys = [...new Set([...Object.keys(approved.values), ...Object.keys(now.values)])].sort();
    const changed = keys.filter((k) => approved.values?.[k] !== now.values?.[k]);
    if (changed.length)
      out.push(
        changed
          .map(
            (k) =>
              `the value of ${esc(k)} is now “${esc(now.values?.[k] ?? "")}”, not the approved “${esc(approved.values?.[k] ?? "")}”`,
          )
          .join("; "),
      );
  }
  const diff = (before: number[] | undefined, after: number[] | undefined, what: string) => {
    if (!before || !after) return;
    const added = after.filter((x) => !before.includes(x));
    const removed = before.filter((x) => !after.includes(x));
    if (added.length && removed.length)
      out.push(`the ${what}s are now ${listWords(what, after)}, not the approved ${listWords(what, before)}`);
    else if (added.length) out.push(`${listWords(what, added)} ${added.length === 1 ? "was" : "were"} added`);
    else if (removed.length)
      out.push(`${listWords(what, removed)} ${removed.length === 1 ? "was" : "were"} removed`);
  };
  diff(approved.groupIds, now.groupIds, "group");
  diff(approved.contactIds, now.contactIds, "contact");
  if (approved.reach !== undefined && now.reach !== undefined) {
    if (Math.abs(now.reach - approved.reach) > COUNT_TOLERANCE * Math.max(approved.reach, 1))
      out.push(
        `it reaches ${num(now.reach)} ${now.reach === 1 ? "person" : "people"}, not the approved ${num(approved.reach)} (more than 10% apart)`,
      );
  } else if (approved.reach !== undefined && now.reach === undefined)
    out.push(`the people it reaches could not be counted now (${num(approved.reach)} when approved)`);
  if (approved.channelId !== undefined && now.channelId !== undefined && approved.channelId !== now.channelId)
    out.push(`it is now sent on channel #${now.channelId}, not the approved #${approved.channelId}`);
  return out;
}
