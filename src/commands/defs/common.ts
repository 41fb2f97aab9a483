// Helpers shared by the command definitions.
import type { KnownBlock } from "@slack/types";
import type { ApiRecord } from "../../api/types.ts";
import { capitalize, context, esc, fieldsSection, header, section } from "../../blocks/blocks.ts";
import { nameOf } from "../../domain/records.ts";
import { channelName, templateChannels } from "../lookups.ts";
import { type CommandContext, type Preview, UserError } from "../registry.ts";
import { pick, recordPairs, show } from "../render.ts";
import { tokenize } from "../tokenize.ts";

export { channelLabel, nameOf, refId, relatedNames, templateLabel } from "../../domain/records.ts";

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
/**
 * A write others should know of, for the channel. Who did it is the front
 * end's to say (Slack adds one "by @who" line to the post), not repeated here.
 */
export function announce(
  _ctx: CommandContext,
  text: string,
  record?: ApiRecord,
  first: string[] = [],
): Reply {
  const blocks: KnownBlock[] = [section(text)];
  // The message's own time says when, and its text names the record: neither is repeated.
  const name = show(pick(record, "name") ?? "");
  const omit = ["createdAt", "updatedAt", ...(name && text.includes(esc(name)) ? ["name"] : [])];
  if (record) blocks.push(...fieldsSection(recordPairs(record, first, omit)));
  return { visibility: "in_channel", text, blocks };
}

/**
 * A write told by the record's name: "Tag *Sales* deleted", the number in a
 * quiet line under it ("Tag 12"); the number stands in only when no name is
 * known. `record`'s fields follow when given (a create or a change).
 */
export function namedWrite(
  ctx: CommandContext,
  noun: string,
  id: unknown,
  named: ApiRecord | string | undefined,
  verb: string,
  record?: ApiRecord,
  first: string[] = [],
): Reply {
  const name = typeof named === "string" ? named : nameOf(named);
  const Noun = noun[0]!.toUpperCase() + noun.slice(1);
  const shownId = id === undefined || id === null ? "" : esc(String(id));
  const text = name ? `${Noun} *${esc(name)}* ${verb}` : `${Noun}${shownId ? ` #${shownId}` : ""} ${verb}`;
  const reply = announce(ctx, text);
  // The name is said above and the number below: the fields repeat neither.
  if (record)
    reply.blocks.push(...fieldsSection(recordPairs(record, first, ["id", "name", "createdAt", "updatedAt"])));
  if (name && shownId) {
    reply.blocks.push(context(`${Noun} #${shownId}`));
    // The notification's text keeps the number too (the blocks show it in the quiet line).
    reply.text = `${text} (${Noun} #${shownId})`;
  }
  return reply;
}

/**
 * After a write, the record's own card (the answer of its show command) for
 * the channel, under one line saying what changed: the same card wherever
 * the record shows, never its raw fields. Falls back to the line alone when
 * the card cannot be read.
 */
export async function cardAfterWrite(
  ctx: CommandContext,
  showId: string,
  id: number,
  text: string,
): Promise<Reply> {
  const spec = ctx.registry.get(showId);
  const card = spec ? await spec.run({ id }, ctx).catch(() => undefined) : undefined;
  // The notification's text keeps the number (the card shows it in its quiet footer).
  const noun = showId.split(".")[0] === "user" ? "Chat user" : capitalize(showId.split(".")[0]!);
  const fallback = `${text} (${noun} #${id})`;
  if (!card) return { ...announce(ctx, text), text: fallback };
  return { visibility: "in_channel", text: fallback, blocks: [section(text), ...card.blocks] };
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
    text: esc(title),
    blocks: [header(title), ...fieldsSection(recordPairs(record, first))],
    confirm: { text: `Delete ${noun}`, style: "danger" },
  };
}

/** `“name”` when the record has one, else nothing. */
export const quoted = (r: ApiRecord | undefined) => {
  const n = nameOf(r);
  return n ? ` “${esc(n)}”` : "";
};

/**
 * The channel (integration) to use: the one given, else the workspace's default
 * channel (its setting, or MESSAGING_CHANNEL_ID in single mode; out of the box:
 * the embedded sandbox's main channel), else the one channel known (named, or
 * named by the organization's templates). The API has no list of channels, so
 * several known channels are offered as buttons, never guessed.
 */
export async function resolveChannel(
  ctx: Pick<CommandContext, "api" | "defaultChannelId"> & Partial<Pick<CommandContext, "channels" | "line">>,
  given: number | undefined,
): Promise<number> {
  if (given !== undefined) return given;
  if (ctx.defaultChannelId !== undefined) return ctx.defaultChannelId;
  const [used, named] = await Promise.all([
    templateChannels(ctx.api),
    ctx.channels?.all().catch(() => new Map<number, string>()) ?? new Map<number, string>(),
  ]);
  const ids = [...new Set([...named.keys(), ...used])].sort((a, b) => a - b);
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0) {
    throw new UserError(
      "No channel is known yet, so there is nowhere to send from: add `channel=<id>` once, name your channels with `/sb channel name <id> <name>`, or ask whoever runs Switchboard to set the main channel.",
    );
  }
  const label = (id: number) => channelName(id, named);
  // Buttons only where a person can click them (not in a workflow step).
  const line = ctx.line?.replace(/\s+channel=\S*/g, "");
  throw new UserError(
    `This account has ${ids.length} channels; choose the one to send on:\n${ids
      .slice(0, 10)
      .map((id, i) => `${i + 1}. ${esc(label(id))} (\`channel=${id}\`)`)
      .join("\n")}`,
    false,
    line === undefined
      ? []
      : ids.slice(0, 10).map((id) => ({ text: label(id), line: `${line} channel=${id}` })),
  );
}

/** The channels' names by id, for a form's channel menu; none when they cannot be read. */
export const channelNamesOf =
  (ctx: Pick<CommandContext, "channels">) => async (): Promise<Record<number, string>> =>
    Object.fromEntries(await ctx.channels.all().catch(() => new Map<number, string>()));

/** `Ana Lima`, else the phone: how a contact is named next to its id. */
export const contactName = (c: ApiRecord): string =>
  [pick(c, "first_name"), pick(c, "last_name")].filter(Boolean).map(String).join(" ") ||
  show(pick(c, "phone") ?? "");
