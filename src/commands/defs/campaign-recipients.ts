// A campaign's recipients as people read them: a status as an icon and a
// word, and names for recipients that carry none (the workspace's names read
// lately, ContactNames, then reads).
import type { CommandContext } from "../registry.ts";
import { pick, show } from "../render.ts";
import { contactName, refId } from "./common.ts";

/** A recipient's status as an icon and a word. */
export const RECIPIENT_WORDS: Record<string, { icon: string; label: string }> = {
  pending: { icon: ":hourglass_flowing_sand:", label: "Waiting" },
  sending: { icon: ":outbox_tray:", label: "Sending" },
  sent: { icon: ":outbox_tray:", label: "Sent" },
  delivered: { icon: ":white_check_mark:", label: "Delivered" },
  read: { icon: ":eyes:", label: "Read" },
  failed: { icon: ":x:", label: "Failed" },
  skipped: { icon: ":fast_forward:", label: "Skipped" },
};

/** Contacts read per page at most: the spec cannot read contacts by a list of ids. */
const NAME_READS = 20;

/**
 * The names of a page's recipients that carry none themselves: from the
 * cache first, then one read per contact, at most NAME_READS (a page is at
 * most its page size). `unread`: recipients left with their phone.
 */
export async function recipientNames(
  ctx: CommandContext,
  items: Array<Record<string, unknown>>,
): Promise<Map<number, string> & { unread: number }> {
  const names = Object.assign(new Map<number, string>(), { unread: 0 });
  const wanted = new Set<number>();
  for (const r of items) {
    const id = refId(r, "contactId", "contact_id");
    if (id === undefined || show(pick(r, "name") ?? "")) continue;
    const known = ctx.contactNames.get(id);
    if (known !== undefined) names.set(id, known);
    else wanted.add(id);
  }
  const reads = [...wanted].slice(0, NAME_READS);
  const read = await Promise.all(
    reads.map((id) =>
      ctx.api.getContact(id).then(
        (c) => [id, contactName(c)] as const,
        () => [id, ""] as const,
      ),
    ),
  );
  for (const [id, name] of read) {
    if (!name) continue;
    names.set(id, name);
    ctx.contactNames.set(id, name);
  }
  names.unread = items.filter((r) => {
    const id = refId(r, "contactId", "contact_id");
    return id !== undefined && !show(pick(r, "name") ?? "") && !names.has(id) && !reads.includes(id);
  }).length;
  return names;
}
