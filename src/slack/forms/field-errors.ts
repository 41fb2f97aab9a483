// Problems (ours from zod, or the API's ValidationError) as Slack field errors:
// { block_id: message } for `response_action: "errors"`, each at its input.
import type { FieldProblem } from "../../api/schemas.ts";
import { capitalize } from "../../blocks/blocks.ts";
import { fieldError } from "./kit.ts";

/** `field` is the API member (`buttons.2.text`); `blockFor` names the input that holds it. */
export function fieldErrors(
  problems: FieldProblem[],
  blockFor: (field: string) => string | undefined,
  fallback: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of problems) {
    const block = blockFor(p.field) ?? fallback;
    const own = blockFor(p.field) !== undefined;
    // A rule about another member is named, so the message still makes sense where it lands.
    const text = own || p.field === "(body)" ? p.rule : `${p.field} ${p.rule}`;
    out[block] = fieldError(out[block] ? `${out[block]}; ${text}` : capitalize(text));
  }
  return out;
}

/** The first block of `order` that has an error, to say where to look. */
export const hasErrors = (errors: Record<string, string>) => Object.keys(errors).length > 0;

/**
 * Slack refuses errors keyed by a block the view does not have: move those to
 * the first input block (naming nothing is worse than naming the wrong place).
 */
export function errorsFor(
  errors: Record<string, string>,
  view: {
    blocks?: Array<{ type?: string; block_id?: string }>;
    state?: { values?: Record<string, unknown> };
  },
): Record<string, string> {
  // The submitted state holds every input block; the blocks say their order.
  const fromBlocks = (view.blocks ?? [])
    .filter((b) => b.type === "input" && b.block_id)
    .map((b) => b.block_id!);
  const inputs = fromBlocks.length ? fromBlocks : Object.keys(view.state?.values ?? {});
  const out: Record<string, string> = {};
  for (const [block, text] of Object.entries(errors)) {
    const target = inputs.includes(block) ? block : inputs[0];
    if (!target) continue;
    out[target] = fieldError(out[target] ? `${out[target]}; ${text}` : text);
  }
  return out;
}
