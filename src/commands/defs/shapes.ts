// The shapes most command definitions share: the commands of one help topic,
// a command of bare words, a command on one record by its number, and the
// delete of such a record. Each command keeps its own words, summary, example
// and answer; only the fields that follow from its words are written here once.
import { z } from "zod";
import type { OperationName } from "../../api/operations.ts";
import type { ApiRecord } from "../../api/types.ts";
import { idArg } from "../args.ts";
import type { Access, CommandContext, CommandDefinition, CommandSpec } from "../registry.ts";
import { deletePreview, namedWrite } from "./common.ts";

const literal = (w: string) => !w.startsWith("<");

/** `tag edit <id> [name=] [color=]`: the words, then each positional (`<text…>` for the rest, `[…]` when optional), then each option. */
function usageOf(d: Pick<CommandDefinition, "words" | "positionals" | "options">): string {
  const positionals = (d.positionals ?? []).map((p) => {
    const name = `${p.name}${p.rest ? "…" : ""}`;
    return p.optional ? `[${name}]` : `<${name}>`;
  });
  const options = Object.keys(d.options ?? {}).map((k) => `[${k}=]`);
  return [...d.words, ...positionals, ...options].join(" ");
}

/**
 * The commands of one help topic: each is filed under it, and its id (the
 * literal words joined by dots: `group.add`) and usage follow from its words
 * where the definition does not state them.
 */
export const inTopic =
  (topic: string) =>
  <A>(d: CommandDefinition<A>): CommandSpec<A> => ({
    ...d,
    id: d.id ?? d.words.filter(literal).join("."),
    usage: d.usage ?? usageOf(d),
    topic: d.topic ?? topic,
  });

/** What help says of a command: its summary, and an example line (without `/sb`). */
export const about = (summary: string, example: string) => ({ summary, example });

/** A command of words alone (`tags`, `campaign new`): no argument, its usage and example are its words. */
export const bare = (words: string[], access: Access = "read") => {
  return { words, schema: z.object({}), access, example: words.join(" ") };
};

/**
 * A command on one record by its number (`tag 3`, `tag edit 3 …`); `noun`
 * names it in "no such tag #3". A command with options states its own schema
 * (the id among them), which replaces this one.
 */
export const onRecord = (words: string[], noun: string, access: Access = "read") => ({
  words,
  positionals: [{ name: "id" }],
  schema: z.object({ id: idArg }),
  access,
  noun,
});

/** `campaign <id> <verb…>`: a command on one campaign (its schema replaced by one of the command's own with options). */
export const onCampaign = (verb: string[], access: Access) => ({
  words: ["campaign", "<id>", ...verb],
  schema: z.object({ id: idArg }),
  access,
  noun: "campaign",
});

/** The list of a kind of record (`tags`), id `tags.list`. */
export const listing = (word: string) => ({ id: `${word}.list`, ...bare([word]) });

/**
 * One record shown by its number (`tag 3`), id `tag.show`, "Show one tag";
 * `example` is the number its example shows, `noun` names it in "no such
 * chat user #3".
 */
export const showing = (word: string, example: number, noun = word) => ({
  id: `${word}.show`,
  ...onRecord([word], noun),
  ...about(`Show one ${noun}`, `${word} ${example}`),
});

/** Records the API reads with `get<Kind>(id)` and deletes with `delete<Kind>(id)`. */
type Kept = "Contact" | "Group" | "Tag" | "Template";

/** How a delete reads the record first (a refusal in words when it cannot be deleted) and removes it. */
interface DeleteCalls<R> {
  operations: OperationName[];
  read: (ctx: CommandContext, id: number) => Promise<R>;
  remove: (ctx: CommandContext, id: number) => Promise<unknown>;
}

/** The calls of a record the API keeps by its kind: `Tag` reads with getTag and deletes with deleteTag. */
const keptCalls = (api: Kept): DeleteCalls<ApiRecord> => ({
  operations: [`delete${api}`, `get${api}`],
  read: (ctx, id) => ctx.api[`get${api}`](id),
  remove: (ctx, id) => ctx.api[`delete${api}`](id),
});

/**
 * `<noun> delete <id>`: asks to confirm with the record as it is now, then
 * deletes it and says so by its name (read before it is gone, a nicety: the
 * number otherwise).
 */
export function deleteCommand<R extends ApiRecord>(
  spec: {
    noun: string;
    /** `Delete a tag (asks to confirm)` unless given. */
    summary?: string;
    example: string;
    /** Refuses in words, before the prompt, a record that cannot be deleted. */
    check?: (record: R, id: number) => void;
    /** How the answer names it; the record's own name by default. */
    name?: (record: R) => string;
    /** The record's fields shown first in the preview. */
    first?: string[];
  } & ({ api: Kept } | DeleteCalls<R>),
): CommandDefinition<{ id: number }> {
  const { noun, check, name } = spec;
  const { operations, read, remove } = "api" in spec ? keptCalls(spec.api) : spec;
  return {
    ...onRecord([noun, "delete"], noun, "write"),
    summary: spec.summary ?? `Delete a ${noun} (asks to confirm)`,
    example: spec.example,
    operations,
    preview: async (a, ctx) => {
      const r = (await read(ctx, a.id)) as R;
      check?.(r, a.id);
      return deletePreview(noun, a.id, r, spec.first);
    },
    run: async (a, ctx) => {
      const r = (await read(ctx, a.id).catch(() => undefined)) as R | undefined;
      await remove(ctx, a.id);
      return namedWrite(ctx, noun, a.id, r && name ? name(r) : r, "deleted");
    },
  };
}
