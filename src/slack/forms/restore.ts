// A submitted form rebuilt as it was: after the "Working…" view replaced it
// and the API then refused, the user gets their form back with what they
// entered and, under each field, why it was refused. views.update cannot
// show Slack's own field errors (only a submission's answer can), so the
// errors are context blocks, removed again the next time the form is rebuilt.
import type { ViewOutput } from "@slack/bolt";
import { cut, VIEW_LIMITS } from "./kit.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is rebuilt loosely.
type Json = any;

const REFUSED = "sb_refused";

/** Each element type's submitted value → the member that sets it initially. Files cannot be restored. */
const INITIAL: Record<string, [from: string, to: string]> = {
  plain_text_input: ["value", "initial_value"],
  email_text_input: ["value", "initial_value"],
  url_text_input: ["value", "initial_value"],
  number_input: ["value", "initial_value"],
  rich_text_input: ["rich_text_value", "initial_value"],
  static_select: ["selected_option", "initial_option"],
  external_select: ["selected_option", "initial_option"],
  radio_buttons: ["selected_option", "initial_option"],
  multi_static_select: ["selected_options", "initial_options"],
  multi_external_select: ["selected_options", "initial_options"],
  checkboxes: ["selected_options", "initial_options"],
  users_select: ["selected_user", "initial_user"],
  multi_users_select: ["selected_users", "initial_users"],
  conversations_select: ["selected_conversation", "initial_conversation"],
  multi_conversations_select: ["selected_conversations", "initial_conversations"],
  channels_select: ["selected_channel", "initial_channel"],
  multi_channels_select: ["selected_channels", "initial_channels"],
  datepicker: ["selected_date", "initial_date"],
  timepicker: ["selected_time", "initial_time"],
  datetimepicker: ["selected_date_time", "initial_date_time"],
};

function withValue(el: Json, state: Json): Json {
  const map = INITIAL[el?.type];
  if (!map || !el.action_id || !state || !(el.action_id in state)) return el;
  const [from, to] = map;
  const value = state[el.action_id]?.[from];
  const { [to]: _old, ...rest } = el;
  const empty = value === null || value === undefined || (Array.isArray(value) && value.length === 0);
  return empty ? rest : { ...rest, [to]: value };
}

/**
 * The view to put back with views.update: its blocks with the submitted
 * values as initial values, `errors` (block id → message) under their
 * fields, and only the members views.update accepts.
 */
export function restoredView(view: ViewOutput, errors: Record<string, string>): Json | undefined {
  // Slack sends the view with its submission; without its blocks and title there is nothing to restore.
  if (!view.blocks?.length || !(view as Json).title) return undefined;
  const values = (view.state?.values ?? {}) as Json;
  const original = ((view.blocks ?? []) as Json[]).filter(
    (b) => !(typeof b.block_id === "string" && b.block_id.startsWith(REFUSED)),
  );
  const refused = (text: string, blockId: string) => ({
    type: "context",
    block_id: `${REFUSED}:${blockId}`,
    elements: [{ type: "mrkdwn", text: cut(text, 2000) }],
  });
  const ids = new Set(original.map((b) => b.block_id));
  const placed = Object.keys(errors).filter((id) => ids.has(id));
  const room = VIEW_LIMITS.blocks - original.length;
  // Under each field when there is room; else all of them in one block at the top; else the form cannot come back.
  const inline = placed.length === Object.keys(errors).length && placed.length <= room;
  if (!inline && room < 1) return undefined;
  const blocks: Json[] = inline
    ? []
    : [refused(`:warning: ${Object.values(errors).join("\n:warning: ")}`, "top")];
  for (const b of original) {
    const state = values[b.block_id];
    let block = b;
    if (b.type === "input" && b.element) block = { ...b, element: withValue(b.element, state) };
    else if (b.type === "section" && b.accessory) block = { ...b, accessory: withValue(b.accessory, state) };
    else if (b.type === "actions")
      block = { ...b, elements: b.elements.map((e: Json) => withValue(e, state)) };
    blocks.push(block);
    if (inline && errors[b.block_id]) blocks.push(refused(`:warning: ${errors[b.block_id]}`, b.block_id));
  }
  const v = view as Json;
  return {
    type: "modal",
    callback_id: v.callback_id,
    title: v.title,
    ...(v.submit ? { submit: v.submit } : {}),
    ...(v.close ? { close: v.close } : {}),
    blocks,
    private_metadata: v.private_metadata ?? "",
    ...(v.notify_on_close ? { notify_on_close: true } : {}),
    ...(v.clear_on_close ? { clear_on_close: true } : {}),
    ...(v.external_id ? { external_id: v.external_id } : {}),
  };
}
