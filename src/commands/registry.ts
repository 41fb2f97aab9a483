// What a command is, and how a line of tokens finds its command and becomes
// the raw arguments its zod schema validates. Commands are declared in
// src/commands/defs/*.ts; this file knows none of them.

import type { z } from "zod";
import type { OperationName } from "../api/operations.ts";
import type { Automations } from "../automations/index.ts";
import type { CampaignContext, Preview } from "../campaigns/context.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import { SwitchboardError } from "../platform/errors.ts";
import type { ReportService } from "../reports/service.ts";
import type { Timers } from "../store/timers.ts";
import type { ContactNames } from "./contact-names.ts";
import type { InboxDeps } from "./inbox.ts";
import type { LaterMessage } from "./later-message.ts";
import type { Token } from "./tokenize.ts";
import type { Access, Reply } from "./types.ts";
import type { WorkspaceAdmin } from "./workspace-admin.ts";

export type { Access };

export interface Positional {
  name: string;
  /**
   * `text`: the remaining words joined by spaces; `list`: the remaining words
   * split on commas too; `words`: the remaining words as typed (unknown
   * `key=value` options included, in order).
   */
  rest?: "text" | "list" | "words";
  optional?: boolean;
}

/** What a command runs with: the campaign code's members (api, actor, the stores, the clock…: src/campaigns/context.ts) and these. */
export interface CommandContext extends CampaignContext {
  /** The command line as typed, without `/sb`. */
  line: string;
  /** The tokens of the line after the command's words (options included). */
  tokens: Token[];
  defaultCountry?: string;
  /** IMPORT_TIMEOUT_MS; unset: sized for the file. */
  importTimeoutMs?: number;
  /** The API key, masked (…abcd), for `/sb me`. */
  apiKeyMasked: string;
  /** Everything the registry knows, for help. */
  registry: Registry;
  /** Whether the actor may run commands that need this access (SWITCHBOARD_WRITERS / _BROADCASTERS). */
  may: (access: Access) => Promise<boolean>;
  /** Report schedules and summaries (src/reports/service.ts); absent where reports are not set up. */
  reports?: ReportService;
  /** The inboxes (docs/inbox.md); absent where they are not set up. */
  inbox?: InboxDeps;
  /** The workspace's connection and settings (`/sb connect`, `/sb settings`); absent where not set up. */
  admin?: WorkspaceAdmin;
  /** The workspace's automations (events out, issue 40 §3): `/sb automations`. */
  automations?: Automations;
  /** The workspace the command runs in. */
  workspace: WorkspaceId;
  /** Names of the workspace's contacts read lately (its runtime's: never another workspace's or account's). */
  contactNames: ContactNames;
  /** Messages sent later (src/commands/later-sends.ts, on the claimed-once timer); absent where not set up. */
  laterSends?: Timers<LaterMessage>;
}

export type { Preview };

/**
 * A command as its definition states it: what is its own. The id, usage and
 * help topic may be left to follow from the words and the file's topic
 * (src/commands/defs/shapes.ts: `inTopic`).
 */
export interface CommandDefinition<A = Record<string, unknown>> {
  /** Stable id, stored with pending confirmations: `campaign.send` (the literal words joined by dots unless given). */
  id?: string;
  /** Literal words, and `<name>` for a positional in the middle (`group <id> add`). */
  words: string[];
  positionals?: Positional[];
  /** Option keys (lower case) with their description. */
  options?: Record<string, string>;
  /** Options that may be given more than once (their value becomes a list). */
  repeatable?: string[];
  /** Bare words that switch something on (`need-human`). */
  flags?: Record<string, string>;
  /** When set, unknown `key=value` options are accepted into `extra` (custom fields, template parameters). */
  extraOptions?: string;
  schema: z.ZodType<A>;
  /** Who may run it (SWITCHBOARD_WRITERS / _BROADCASTERS): read, write or broadcast. */
  access: Access;
  /** `tag add <name> <#RRGGBB> [description…]` (without `/sb`); unless given, the words, positionals and options. */
  usage?: string;
  summary: string;
  help?: string;
  example: string;
  /** Help topic this command is listed under. */
  topic?: string;
  operations: OperationName[];
  /** The kind of record the id names, for "no such tag #12". */
  noun?: string;
  /**
   * Present when the command asks for confirmation first. Undefined: nothing
   * to ask this time (`import` asks only in the shell), the command runs at once.
   */
  preview?: (args: A, ctx: CommandContext) => Promise<Preview | undefined>;
  run: (args: A, ctx: CommandContext) => Promise<Reply>;
  /** Not listed in help (aliases). */
  hidden?: boolean;
}

export interface CommandSpec<A = Record<string, unknown>> extends CommandDefinition<A> {
  id: string;
  usage: string;
  topic: string;
}

// biome-ignore lint/suspicious/noExplicitAny: specs of every argument type live in one list.
export type AnySpec = CommandSpec<any>;

export const defineCommand = <A>(spec: CommandSpec<A>): CommandSpec<A> => spec;

const isSlot = (w: string) => w.startsWith("<") && w.endsWith(">");
const slotName = (w: string) => w.slice(1, -1);

export interface Match {
  spec: AnySpec;
  /** Values bound by `<name>` slots among the words. */
  slots: Record<string, string>;
  /** Tokens after the words. */
  rest: Token[];
}

export class Registry {
  readonly commands: AnySpec[];
  private readonly byId = new Map<string, AnySpec>();

  constructor(commands: AnySpec[]) {
    this.commands = commands;
    for (const c of commands) {
      if (this.byId.has(c.id)) throw new Error(`duplicate command id ${c.id}`);
      this.byId.set(c.id, c);
    }
  }

  get(id: string): AnySpec | undefined {
    return this.byId.get(id);
  }

  /**
   * The command whose words match the start of the line, preferring the one
   * with the most literal words (`campaign new` over `campaign <id>`), then the
   * longest. A quoted token never matches a literal word.
   */
  match(tokens: Token[]): Match | undefined {
    let best: { m: Match; literals: number; len: number } | undefined;
    for (const spec of this.commands) {
      if (spec.words.length > tokens.length) continue;
      const slots: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      for (let i = 0; i < spec.words.length; i++) {
        const w = spec.words[i]!;
        const t = tokens[i]!;
        if (isSlot(w)) {
          if (t.kind !== "word") {
            ok = false;
            break;
          }
          slots[slotName(w)] = t.text;
        } else if (t.kind === "word" && !t.quoted && t.text.toLowerCase() === w) {
          literals++;
        } else {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      const cand = {
        m: { spec, slots, rest: tokens.slice(spec.words.length) },
        literals,
        len: spec.words.length,
      };
      if (
        !best ||
        cand.literals > best.literals ||
        (cand.literals === best.literals && cand.len > best.len)
      ) {
        best = cand;
      }
    }
    return best?.m;
  }

  /** Names of commands (their usage) close to what was typed, for "did you mean". */
  visible(): AnySpec[] {
    return this.commands.filter((c) => !c.hidden);
  }
}

// A problem with what the user asked: it lives in the platform's errors (src/campaigns throws it too).
export { UserError } from "../platform/errors.ts";

export class ArgumentError extends SwitchboardError {
  readonly code = "bad_arguments";
  readonly field?: string;
  /** The command is the one meant (a value missing, not a word mistyped): no other command is guessed. */
  readonly meant: boolean;
  constructor(message: string, field?: string, opts: { meant?: boolean } = {}) {
    super(message);
    this.field = field;
    this.meant = opts.meant ?? false;
  }
}

/** Whether an edit's option takes an empty value (a custom field does; a group's name does not). */
function mayClear(spec: AnySpec, key: string): boolean {
  if (!spec.words.includes("edit") && !spec.words.includes("set")) return false;
  const member = (spec.schema as { shape?: Record<string, z.ZodType> }).shape?.[key];
  return member ? member.safeParse("").success : Boolean(spec.extraOptions);
}

/** The refusal of `key=` typed with no value: how to give one (the command's example's, if it has one), and how to clear. */
function emptyValue(spec: AnySpec, key: string): string {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const example = new RegExp(`(?:^|\\s)(${escaped}=(?:"[^"]+"|[^\\s"]+))`, "i").exec(spec.example)?.[1];
  const give = example ? `give one, like \`${example}\`` : "give one";
  return mayClear(spec, key)
    ? `\`${key}=\` has no value: ${give}, or type \`${key}=""\` to clear it. Nothing was changed.`
    : `\`${key}=\` has no value: ${give}.`;
}

/**
 * Turns the tokens after a command's words into the raw object its schema
 * validates: slots and positionals by name, options by key, flags as true,
 * unknown options into `extra` (when the command takes them).
 */
export function bindArguments(spec: AnySpec, match: Match): Record<string, unknown> {
  const raw: Record<string, unknown> = { ...match.slots };
  const words: Token[] = [];
  const extra: Record<string, string> = {};
  const options = spec.options ?? {};
  const flags = spec.flags ?? {};
  const textRest = spec.positionals?.some((p) => p.rest === "text" || p.rest === "words");

  for (const t of match.rest) {
    if (t.kind === "option") {
      const key = t.key!;
      // `name=` with nothing after it is a slip, never a wish to clear: that is asked plainly, `name=""`.
      if (t.value === "" && !t.quoted && (key in options || spec.extraOptions))
        throw new ArgumentError(emptyValue(spec, key), key, { meant: true });
      if (key in options) {
        if (spec.repeatable?.includes(key)) {
          raw[key] = [...((raw[key] as string[] | undefined) ?? []), t.value!];
        } else if (raw[key] !== undefined) {
          throw new ArgumentError(`${key}= is given twice; give it once`, key);
        } else {
          raw[key] = t.value;
        }
      } else if (spec.extraOptions) {
        if (key in extra) throw new ArgumentError(`${key}= is given twice; give it once`, key);
        extra[key] = t.value!;
      } else if (textRest) {
        // `a=b` inside free text (a message, a description) is just text.
        words.push({ ...t, kind: "word" });
      } else {
        const known = Object.keys(options);
        throw new ArgumentError(
          `${key}= is not an option of this command${known.length ? ` (options: ${known.map((k) => `${k}=`).join(", ")})` : " (it takes no options)"}`,
          key,
        );
      }
    } else if (!t.quoted && t.text.toLowerCase() in flags) {
      raw[t.text.toLowerCase()] = true;
    } else {
      words.push(t);
    }
  }
  if (spec.extraOptions) raw.extra = extra;

  const positionals = spec.positionals ?? [];
  let i = 0;
  for (const p of positionals) {
    if (p.rest === "text") {
      const taken = words.slice(i);
      i = words.length;
      if (taken.length) raw[p.name] = taken.map((t) => t.text).join(" ");
    } else if (p.rest === "words") {
      raw[p.name] = words.slice(i).map((t) => t.text);
      i = words.length;
    } else if (p.rest === "list") {
      const taken = words.slice(i);
      i = words.length;
      const items = taken
        .flatMap((t) => t.text.split(","))
        .map((s) => s.trim())
        .filter(Boolean);
      if (items.length) raw[p.name] = items;
    } else if (i < words.length) {
      raw[p.name] = words[i]!.text;
      i++;
    }
  }
  if (i < words.length) {
    const extraWords = words
      .slice(i)
      .map((t) => t.text)
      .join(" ");
    throw new ArgumentError(
      `unexpected "${extraWords}": this command takes ${positionals.length ? `only ${positionals.map((p) => (p.name === "id" ? "a number" : p.name.replace(/-/g, " "))).join(" and ")}` : "no more words"}`,
    );
  }
  return raw;
}
