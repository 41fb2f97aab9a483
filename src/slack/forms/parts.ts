// What the campaign, send and template forms share, written once: the channel
// input, the approved-template menu (searched as the user types), the chosen
// template's body and one input per placeholder, those inputs' values, and
// the chosen template read again when the menu changes.
import type { KnownBlock, PlainTextOption } from "@slack/types";
import type { FieldProblem } from "../../api/schemas.ts";
import type { MessagingApi } from "../../api/types.ts";
import type { ChannelsFormData } from "../../commands/form-kinds.ts";
import { type ChosenTemplate, chosenTemplate } from "../../commands/lookups.ts";
import { humanize } from "../../commands/render.ts";
import type { Actor } from "../../commands/types.ts";
import type { Reach } from "../context.ts";
import { withApi } from "../perform.ts";
import { channelOptions, templateSuggestions } from "./choices.ts";
import type { Suggest } from "./form.ts";
import {
  context,
  cut,
  input,
  plain,
  type StateValues,
  selectedOf,
  selectedOptionOf,
  staticSelect,
  textInput,
  textOf,
} from "./kit.ts";

/** The action id of the approved-template menu: choosing one shows its placeholders. */
export const TEMPLATE_MENU = "sb_tpl";

/** A chosen template as the form's metadata keeps it (its body only as a preview). */
export type TemplateChoice = Omit<ChosenTemplate, "body"> & { body?: string };

/**
 * The channel: a menu of the channels known (the one chosen kept, else
 * `preferred`, the default, the first), or a number input when none is known.
 */
export function channelInput(
  data: ChannelsFormData,
  state: StateValues | undefined,
  o: { preferred?: number; hint?: string; idHint: string },
): KnownBlock {
  if (data.channels.length) {
    const initial =
      selectedOf(state, "channel") ?? String(o.preferred ?? data.defaultChannelId ?? data.channels[0] ?? "");
    return input(
      "channel",
      "Channel",
      staticSelect("channel", channelOptions(data.channels, data.defaultChannelId, data.channelNames), {
        initial,
      }),
      o.hint ? { hint: o.hint } : {},
    );
  }
  const v = textOf(state, "channel");
  return input(
    "channel",
    "Channel id",
    {
      type: "number_input",
      action_id: "channel",
      is_decimal_allowed: false,
      min_value: "1",
      ...(v ? { initial_value: v } : {}),
    },
    { hint: o.idHint },
  );
}

/** The approved-template menu; a choice rebuilds the form with the template's placeholders. */
export function templateMenu(state: StateValues | undefined, hint?: string): KnownBlock {
  const chosen = selectedOptionOf(state, "template");
  return input(
    "template",
    "Template",
    {
      type: "external_select",
      action_id: TEMPLATE_MENU,
      min_query_length: 0,
      placeholder: plain("Search approved templates"),
      ...(chosen ? { initial_option: chosen } : {}),
    },
    { dispatch: true, ...(hint ? { hint } : {}) },
  );
}

/**
 * A placeholder's label in words: `first_name` → "First name", `order_id` →
 * "Order ID", `1` → "Value 1" (issue 39 §2: never `{{first_name}}`).
 */
export function placeholderLabel(p: string): string {
  return cut(/^\d+$/.test(p) ? `Value ${p}` : humanize(p), 48);
}

/**
 * The template's line a placeholder fills, as its input's hint, with its own
 * place marked and the others left out: "Hi [First name], your order … is on its way."
 */
export function placeholderLine(body: string | undefined, p: string): string | undefined {
  const line = (body ?? "").split("\n").find((l) => new RegExp(`\\{\\{\\s*${p}\\s*\\}\\}`).test(l));
  if (!line?.trim()) return undefined;
  const marked = line
    .trim()
    .replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_m, name: string) =>
      name === p ? `[${placeholderLabel(p)}]` : "…",
    );
  return cut(marked, 150);
}

/**
 * A template's text as people read it in a form: each `{{first_name}}` as
 * its name in words, "[First name]" (issue 39 §2).
 */
export function templateInWords(body: string): string {
  return body.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_m, name: string) => `[${placeholderLabel(name)}]`);
}

/** The chosen template's body, quoted with its placeholders in words, and one input per placeholder. */
export function templateParams(
  tpl: TemplateChoice | undefined,
  state: StateValues | undefined,
  hint?: string,
): KnownBlock[] {
  if (!tpl) return [];
  const blocks: KnownBlock[] = [];
  if (tpl.body)
    blocks.push(context(`>${cut(templateInWords(tpl.body), 2900).replace(/\n/g, "\n>")}`, "template_body"));
  for (const p of tpl.placeholders.slice(0, 30)) {
    blocks.push(
      input(
        `param:${p}`,
        placeholderLabel(p),
        textInput(`param:${p}`, { initial: textOf(state, `param:${p}`), max: 1000 }),
        withHint(placeholderLine(tpl.body, p), hint),
      ),
    );
  }
  return blocks;
}

/** An input's hint: the template's line, then the form's own words, within Slack's 2,000 characters. */
export function withHint(...parts: Array<string | undefined>): { hint?: string } {
  const hint = parts.filter(Boolean).join(" · ");
  return hint ? { hint: cut(hint, 2000) } : {};
}

/** The placeholders' values; a missing one is a problem at `field(placeholder)`. */
export function paramValues(
  state: StateValues,
  tpl: TemplateChoice | undefined,
  field: (placeholder: string) => string,
): { values: Record<string, string>; problems: FieldProblem[] } {
  const values: Record<string, string> = {};
  const problems: FieldProblem[] = [];
  for (const p of tpl?.placeholders ?? []) {
    const v = textOf(state, `param:${p}`);
    if (v === undefined) problems.push({ field: field(p), rule: "needs a value" });
    else values[p] = v;
  }
  return { values, problems };
}

/** The template chosen in the menu, read again, or undefined when none is. */
export async function chosenTemplateMeta(
  ctx: Reach,
  actor: Actor,
  state: StateValues,
): Promise<TemplateChoice | undefined> {
  const id = Number(selectedOf(state, "template"));
  if (!Number.isInteger(id) || id <= 0) return undefined;
  const t = await withApi(ctx, actor, "read", "form", (api) => chosenTemplate(api, id));
  // The body is only a preview here; cut so the metadata stays under Slack's 3000 characters.
  return { ...t, body: cut(t.body, 600), placeholders: t.placeholders.slice(0, 30) };
}

/** The menu's options: approved templates matching what is typed, of the channel chosen in the form. */
export function templateOptions(api: MessagingApi, s: Suggest): Promise<PlainTextOption[]> {
  const channel = Number(selectedOf(s.state, "channel"));
  return templateSuggestions(api, s.query, Number.isInteger(channel) && channel > 0 ? channel : undefined);
}
