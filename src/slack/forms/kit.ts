// Small Block Kit builders for the modals, inside Slack's view limits (title
// 24 characters, 100 blocks, labels 2000, option texts 75, private_metadata
// 3000), and the readers of a submitted view's state.
import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";

export const VIEW_LIMITS = {
  title: 24,
  button: 24,
  blocks: 100,
  label: 2000,
  hint: 2000,
  optionText: 75,
  options: 100,
  placeholder: 150,
  privateMetadata: 3000,
  contextText: 3000,
} as const;

export const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;

export const plain = (text: string, max: number = VIEW_LIMITS.label) => ({
  type: "plain_text" as const,
  text: cut(text || " ", max),
  emoji: true,
});

export const mrkdwn = (text: string) => ({
  type: "mrkdwn" as const,
  text: cut(text || " ", VIEW_LIMITS.contextText),
});

export const option = (text: string, value: string, description?: string): PlainTextOption => ({
  text: plain(text, VIEW_LIMITS.optionText),
  value,
  ...(description ? { description: plain(description, VIEW_LIMITS.optionText) } : {}),
});

export interface InputOpts {
  optional?: boolean;
  hint?: string;
  /** Fire block_actions when the value changes (views.update reacts to it). */
  dispatch?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: elements of every kind go in an input block.
export function input(blockId: string, label: string, element: any, opts: InputOpts = {}): KnownBlock {
  return {
    type: "input",
    block_id: blockId,
    label: plain(label),
    element,
    optional: opts.optional ?? false,
    ...(opts.dispatch ? { dispatch_action: true } : {}),
    ...(opts.hint ? { hint: plain(opts.hint, VIEW_LIMITS.hint) } : {}),
  } as KnownBlock;
}

export const textInput = (
  actionId: string,
  o: {
    initial?: string;
    placeholder?: string;
    multiline?: boolean;
    max?: number;
    /** Dispatch on each character (a hint that follows what is typed). */
    live?: boolean;
  } = {},
) => ({
  type: "plain_text_input",
  action_id: actionId,
  ...(o.initial ? { initial_value: o.initial } : {}),
  ...(o.placeholder ? { placeholder: plain(o.placeholder, VIEW_LIMITS.placeholder) } : {}),
  ...(o.multiline ? { multiline: true } : {}),
  // Slack refuses the whole view when max_length exceeds 3000.
  ...(o.max ? { max_length: Math.min(o.max, 3000) } : {}),
  ...(o.live ? { dispatch_action_config: { trigger_actions_on: ["on_character_entered"] } } : {}),
});

export const staticSelect = (
  actionId: string,
  options: PlainTextOption[],
  o: { initial?: string; placeholder?: string } = {},
) => {
  const opts = options.slice(0, VIEW_LIMITS.options);
  const initial = opts.find((x) => x.value === o.initial);
  return {
    type: "static_select",
    action_id: actionId,
    options: opts,
    ...(initial ? { initial_option: initial } : {}),
    ...(o.placeholder ? { placeholder: plain(o.placeholder, VIEW_LIMITS.placeholder) } : {}),
  };
};

export const context = (text: string, blockId?: string): KnownBlock => ({
  type: "context",
  ...(blockId ? { block_id: blockId } : {}),
  elements: [mrkdwn(text)],
});

export const sectionText = (text: string, blockId?: string): KnownBlock => ({
  type: "section",
  ...(blockId ? { block_id: blockId } : {}),
  text: mrkdwn(text),
});

/** A modal inside Slack's limits; throws when the metadata does not fit (a bug, not user input). */
export function modal(v: {
  callbackId: string;
  title: string;
  submit?: string;
  close?: string;
  blocks: KnownBlock[];
  metadata?: unknown;
  externalId?: string;
}): ModalView {
  const metadata = v.metadata === undefined ? "" : JSON.stringify(v.metadata);
  if (metadata.length > VIEW_LIMITS.privateMetadata)
    throw new Error(`private_metadata of ${v.callbackId} is ${metadata.length} characters, over 3000`);
  const blocks = v.blocks.slice(0, VIEW_LIMITS.blocks);
  return {
    type: "modal",
    callback_id: v.callbackId,
    title: plain(v.title, VIEW_LIMITS.title),
    ...(v.submit ? { submit: plain(v.submit, VIEW_LIMITS.button) } : {}),
    close: plain(v.close ?? "Cancel", VIEW_LIMITS.button),
    blocks,
    private_metadata: metadata,
    ...(v.externalId ? { external_id: v.externalId } : {}),
  } as ModalView;
}

// ---------------------------------------------------------------- reading a view's state

// biome-ignore lint/suspicious/noExplicitAny: Slack's state values are loosely typed.
export type StateValues = Record<string, Record<string, any>>;

/** The one element value of a block (the modals use one element per input block). */
// biome-ignore lint/suspicious/noExplicitAny: see StateValues.
function elementOf(state: StateValues | undefined, blockId: string): any {
  const block = state?.[blockId];
  if (!block) return undefined;
  const first = Object.values(block)[0];
  return first;
}

/** A text input's value, trimmed; undefined when empty. */
export function textOf(state: StateValues | undefined, blockId: string): string | undefined {
  const v = elementOf(state, blockId)?.value;
  if (typeof v !== "string") return undefined;
  return v.trim() === "" ? undefined : v;
}

export function selectedOf(state: StateValues | undefined, blockId: string): string | undefined {
  const el = elementOf(state, blockId);
  return el?.selected_option?.value ?? undefined;
}

export function selectedListOf(state: StateValues | undefined, blockId: string): string[] {
  const el = elementOf(state, blockId);
  const list = el?.selected_options as Array<{ value: string }> | undefined;
  return (list ?? []).map((o) => o.value);
}

/** The option objects of a multi-select, to keep them as initial options on a rebuild. */
export function selectedOptionsOf(state: StateValues | undefined, blockId: string): PlainTextOption[] {
  const el = elementOf(state, blockId);
  return (el?.selected_options as PlainTextOption[] | undefined) ?? [];
}

export function selectedOptionOf(
  state: StateValues | undefined,
  blockId: string,
): PlainTextOption | undefined {
  return elementOf(state, blockId)?.selected_option ?? undefined;
}

export function dateTimeOf(state: StateValues | undefined, blockId: string): number | undefined {
  const v = elementOf(state, blockId)?.selected_date_time;
  return typeof v === "number" ? v : undefined;
}

export function dateOf(state: StateValues | undefined, blockId: string): string | undefined {
  const v = elementOf(state, blockId)?.selected_date;
  return typeof v === "string" && v ? v : undefined;
}

export function numberOf(state: StateValues | undefined, blockId: string): string | undefined {
  const v = elementOf(state, blockId)?.value;
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

export function checkedOf(state: StateValues | undefined, blockId: string): string[] {
  const el = elementOf(state, blockId);
  return ((el?.selected_options as Array<{ value: string }> | undefined) ?? []).map((o) => o.value);
}

export function filesOf(
  state: StateValues | undefined,
  blockId: string,
): Array<{ id: string; name?: string }> {
  const el = elementOf(state, blockId);
  return (el?.files as Array<{ id: string; name?: string }> | undefined) ?? [];
}

export function readMetadata<T>(raw: string | undefined): Partial<T> {
  if (!raw) return {};
  try {
    const v = JSON.parse(raw);
    return v && typeof v === "object" ? (v as Partial<T>) : {};
  } catch {
    return {};
  }
}

/** Slack shows at most this much of an error under a field. */
export const fieldError = (text: string) => cut(text, 300);

/**
 * The state a view would submit untouched: each input's initial value as Slack sends it back. A form compares
 * it with what was submitted, so a Save that changes nothing writes nothing.
 */
export function initialStateOf(blocks: readonly KnownBlock[]): StateValues {
  const out: StateValues = {};
  for (const b of blocks as Array<{ type: string; block_id?: string; element?: Record<string, unknown> }>) {
    const el = b.element;
    if (b.type !== "input" || !b.block_id || !el || typeof el.action_id !== "string") continue;
    const v: Record<string, unknown> = { type: el.type };
    if (el.type === "conversations_select") v.selected_conversation = el.initial_conversation ?? null;
    else if (el.type === "checkboxes" || String(el.type).startsWith("multi_"))
      v.selected_options = el.initial_options ?? [];
    else if (el.type === "static_select" || el.type === "radio_buttons")
      v.selected_option = el.initial_option ?? null;
    else if (el.type === "datepicker") v.selected_date = el.initial_date ?? null;
    else v.value = el.initial_value ?? null;
    out[b.block_id] = { [el.action_id]: v };
  }
  return out;
}
