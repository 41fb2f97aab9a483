// Helpers shared by the command definitions.
import type { KnownBlock } from "@slack/types";
import type { ApiRecord } from "../../api/types.ts";
import { esc, fieldsSection, header, section } from "../blocks.ts";
import { type CommandContext, type Preview, UserError } from "../registry.ts";
import { pick, recordPairs, show } from "../render.ts";
import { tokenize } from "../tokenize.ts";
import type { Reply } from "../types.ts";

/** The command line of another page of the same list. */
export const pageLine =
  (ctx: CommandContext) =>
  (n: number): string =>
    [
      ...tokenize(ctx.line)
        .filter((t) => !(t.kind === "option" && t.key === "page"))
        .map((t) => t.raw),
      `page=${n}`,
    ].join(" ");

/** A change others should know of: in the channel, naming who did it. */
export function announce(ctx: CommandContext, text: string, record?: ApiRecord, first: string[] = []): Reply {
  const blocks: KnownBlock[] = [section(`${text} (by ${ctx.who})`)];
  // The message's own time says when, and its text names the record: neither is repeated.
  const name = show(pick(record, "name") ?? "");
  const omit = ["createdAt", "updatedAt", ...(name && text.includes(esc(name)) ? ["name"] : [])];
  if (record) blocks.push(...fieldsSection(recordPairs(record, first, omit)));
  return { visibility: "in_channel", text: `${text} (by ${ctx.who})`, blocks };
}

/** An ephemeral note (a lookup-like answer to a write nobody else needs to see). */
export function note(text: string, record?: ApiRecord, first: string[] = []): Reply {
  const blocks: KnownBlock[] = [section(text)];
  if (record) blocks.push(...fieldsSection(recordPairs(record, first)));
  return { visibility: "ephemeral", text, blocks };
}

/** A preview of a delete: the record as it is now, and what will happen. */
export function deletePreview(noun: string, id: number, record: ApiRecord, first: string[] = []): Preview {
  const name = show(pick(record, "name", "label", "key") ?? "");
  const title = `Delete ${noun} #${id}${name ? ` “${name}”` : ""}?`;
  return {
    text: title,
    blocks: [header(title), ...fieldsSection(recordPairs(record, first))],
    confirm: { text: `Delete ${noun}`, style: "danger" },
  };
}

export const nameOf = (r: ApiRecord | undefined, fallback = "") =>
  show(pick(r, "name", "label", "key") ?? fallback);

/** `“name”` when the record has one, else nothing. */
export const quoted = (r: ApiRecord | undefined) => {
  const n = nameOf(r);
  return n ? ` “${esc(n)}”` : "";
};

/**
 * The channel (integration) to use: the one given, else MESSAGING_CHANNEL_ID,
 * else the single channel the organization's templates name. The API has no
 * list of channels, so several candidates are asked about, never guessed.
 */
export async function resolveChannel(ctx: CommandContext, given: number | undefined): Promise<number> {
  if (given !== undefined) return given;
  if (ctx.defaultChannelId !== undefined) return ctx.defaultChannelId;
  const page = await ctx.api.listTemplates({});
  const ids = [
    ...new Set(
      page.items
        .map((t) => Number(pick(t, "integrationId", "integration_id", "channelId", "channel_id")))
        .filter((n) => Number.isInteger(n) && n > 0),
    ),
  ].sort((a, b) => a - b);
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0) {
    throw new UserError(
      "Which channel? MESSAGING_CHANNEL_ID is not set and no template names a channel: add `channel=<id>`.",
    );
  }
  throw new UserError(
    `Which channel? The templates name several: ${ids.join(", ")}. Add \`channel=<id>\`, for example \`channel=${ids[0]}\`.`,
  );
}
