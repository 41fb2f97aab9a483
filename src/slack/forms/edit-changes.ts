// An edit form's changes (issue 39): the fields shown with a value and
// submitted empty are refused in words unless the person ticks "Clear the
// fields I emptied" (as `name=""` asks in a command), and a Save that changes
// nothing writes nothing and says so. Used by the contact and chat-user forms.
import type { KnownBlock } from "@slack/types";
import type { FormOutcome } from "./form.ts";
import { checkedOf, context, input, modal, option, type StateValues } from "./kit.ts";

/** The box that says an emptied field is to be cleared (as `name=""` says it in a command). */
export const CLEAR = "clear";
export const clearBox = (): KnownBlock =>
  input(
    CLEAR,
    "Emptied fields",
    { type: "checkboxes", action_id: CLEAR, options: [option("Clear the fields I emptied", "yes")] },
    { optional: true, hint: "Without it, a field you empty is not cleared: the form asks you first." },
  );

/** A view as submitted: its blocks, with their labels and initial values (read loosely). */
interface ShownView {
  blocks?: ReadonlyArray<object>;
}
interface ShownInput {
  type?: string;
  block_id?: string;
  label?: { text?: string };
  element?: Record<string, unknown>;
}

/** The inputs shown with a value and submitted empty: block id → label. */
export function emptiedBlocks(view: ShownView, state: StateValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of (view.blocks ?? []) as ShownInput[]) {
    if (b.type !== "input" || !b.block_id || b.block_id === CLEAR || !b.element) continue;
    const el = b.element;
    const had = el.initial_value ?? el.initial_date ?? el.initial_option;
    if (had === undefined || had === "") continue;
    const v = (Object.values(state[b.block_id] ?? {})[0] ?? {}) as Record<string, unknown>;
    const now = [v.value, v.selected_date, (v.selected_option as { value?: string } | null)?.value].some(
      (x) => typeof x === "string" && x.trim() !== "",
    );
    if (!now) out[b.block_id] = b.label?.text ?? "This field";
  }
  return out;
}

/** A value as shown or as submitted: text, date or option, "" when none. */
const shownValue = (el: Record<string, unknown>): string =>
  String(
    el.initial_value ?? el.initial_date ?? (el.initial_option as { value?: string } | undefined)?.value ?? "",
  ).trim();
const submittedValue = (v: Record<string, unknown>): string =>
  String(v.value ?? v.selected_date ?? (v.selected_option as { value?: string } | null)?.value ?? "").trim();

/** Every field as the form showed it (the box unticked): a Save that changes nothing writes nothing. */
export function untouched(view: ShownView, state: StateValues): boolean {
  if (clearAsked(state)) return false;
  return ((view.blocks ?? []) as ShownInput[]).every((b) => {
    if (b.type !== "input" || !b.block_id || b.block_id === CLEAR || !b.element) return true;
    const v = (Object.values(state[b.block_id] ?? {})[0] ?? {}) as Record<string, unknown>;
    return shownValue(b.element) === submittedValue(v);
  });
}

/** The answer to an untouched Save: said, nothing written. */
export const nothingChanged = (title: string): FormOutcome => ({
  answer: {
    response_action: "update",
    view: modal({
      callbackId: "sb_edit_unchanged",
      title,
      close: "Done",
      blocks: [context("Nothing changed: every field is as it was, so nothing was saved.")],
    }),
  } as FormOutcome["answer"],
});

/**
 * The fields shown with a value and submitted empty, each refused at its
 * field in words unless the box asks to clear them (issue 39: an empty value
 * clears only when asked plainly); `never`: those that cannot be cleared at
 * all, in their own words. Nothing is written while one is refused.
 */
export function emptiedFields(
  view: ShownView,
  state: StateValues,
  never: Record<string, string> = {},
): Record<string, string> | undefined {
  const asked = clearAsked(state);
  const errors: Record<string, string> = {};
  for (const [block, label] of Object.entries(emptiedBlocks(view, state))) {
    if (never[block]) errors[block] = never[block];
    else if (!asked)
      errors[block] =
        `You emptied ${label}: to clear it, tick “Clear the fields I emptied” at the bottom; else type it back.`;
  }
  return Object.keys(errors).length ? errors : undefined;
}

export const clearAsked = (state: StateValues) => checkedOf(state, CLEAR).includes("yes");
