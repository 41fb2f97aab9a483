// `/sb template new`: the template form. The name is shown as the service
// will store it, one example input appears per {{placeholder}} of the body as
// it is typed, and up to 10 buttons are added one row at a time. Submitting
// checks the same rules as the client (createTemplateSchema) first, each
// problem at its field; then the template is submitted for approval.
import type { KnownBlock, ModalView } from "@slack/types";
import type { CreateTemplateInput } from "../../api/schemas.ts";
import {
  BUTTON_TYPES,
  createTemplateSchema,
  describeIssues,
  type FieldProblem,
  normalizeTemplateName,
  placeholdersOf,
  TEMPLATE_CATEGORIES,
} from "../../api/schemas.ts";
import { esc } from "../../blocks/blocks.ts";
import type { ChannelsFormData } from "../../commands/form-kinds.ts";
import { pick } from "../../commands/render.ts";
import { withApi } from "../perform.ts";
import { fieldErrors } from "./field-errors.ts";
import { askedIn, type SlackForm } from "./form.ts";
import {
  context,
  input,
  modal,
  option,
  type StateValues,
  selectedOf,
  staticSelect,
  textInput,
  textOf,
} from "./kit.ts";
import { channelInput, placeholderLabel, placeholderLine, withHint } from "./parts.ts";
import { postLine, refused } from "./submission.ts";

export const TEMPLATE_CALLBACK = "sb_template";
export const TEMPLATE_ACTIONS = {
  name: "sb_tname",
  body: "sb_tbody",
  addButton: "sb_add_button",
  removeButton: "sb_remove_button",
} as const;
export const MAX_BUTTONS = 10;

export interface TemplateMeta {
  ch?: string;
  /** How many button rows the form shows. */
  buttons?: number;
  /** Channels offered (kept here so a rebuild on each keystroke reads nothing). */
  chs?: number[];
  def?: number;
}

export type TemplateData = ChannelsFormData;

const CATEGORY_HINTS: Record<string, string> = {
  UTILITY: "Utility: about an order or account",
  MARKETING: "Marketing: offers and news",
  AUTHENTICATION: "Authentication: one-time codes",
};

export function templateModal(data: TemplateData, meta: TemplateMeta, state?: StateValues): ModalView {
  const blocks: KnownBlock[] = [];
  blocks.push(channelInput(data, state, { idHint: "The messaging channel that owns the template." }));
  const name = textOf(state, "name");
  blocks.push(
    input(
      "name",
      "Name",
      textInput(TEMPLATE_ACTIONS.name, { initial: name, max: 512, live: true, placeholder: "Order update" }),
      { dispatch: true },
    ),
  );
  const normalized = name ? normalizeTemplateName(name) : "";
  blocks.push(
    context(
      name
        ? normalized
          ? `Saved as \`${normalized}\`: the service stores names in lower case with underscores.`
          : ":warning: The name needs letters or digits."
        : "The service stores names in lower case with underscores: “Order update” becomes `order_update`.",
      "name_hint",
    ),
  );
  blocks.push(
    input(
      "language",
      "Language",
      textInput("language", { initial: textOf(state, "language") ?? "en", max: 10 }),
      {
        hint: "The provider's language code, for example en, es or pt_BR.",
      },
    ),
  );
  blocks.push(
    input(
      "category",
      "Category",
      staticSelect(
        "category",
        TEMPLATE_CATEGORIES.map((c) => option(CATEGORY_HINTS[c] ?? c, c)),
        { initial: selectedOf(state, "category"), placeholder: "Choose a category" },
      ),
    ),
  );
  const body = textOf(state, "body");
  blocks.push(
    input(
      "body",
      "Body",
      textInput(TEMPLATE_ACTIONS.body, {
        initial: body,
        multiline: true,
        max: 1024,
        live: true,
        placeholder: "Hi {{name}}, your order {{order}} has shipped.",
      }),
      {
        dispatch: true,
        hint: "Write placeholders as {{name}}: an example input appears for each.",
      },
    ),
  );
  const names = body ? placeholdersOf(body).slice(0, 20) : [];
  for (const p of names) {
    blocks.push(
      input(
        `example:${p}`,
        `Example for ${placeholderLabel(p)}`,
        textInput(`example:${p}`, { initial: textOf(state, `example:${p}`), max: 200 }),
        withHint(placeholderLine(body, p), "The provider reviews the template with these values."),
      ),
    );
  }
  blocks.push(
    input("footer", "Footer", textInput("footer", { initial: textOf(state, "footer"), max: 60 }), {
      optional: true,
      hint: "At most 60 characters, no placeholders.",
    }),
  );
  const count = Math.min(meta.buttons ?? 0, MAX_BUTTONS);
  for (let i = 0; i < count; i++) {
    const n = i + 1;
    blocks.push(
      input(
        `button:${i}:type`,
        `Button ${n}: type`,
        staticSelect(
          `button:${i}:type`,
          BUTTON_TYPES.map((t) => option(t === "URL" ? "Opens a link (URL)" : "Quick reply", t)),
          { initial: selectedOf(state, `button:${i}:type`) ?? "QUICK_REPLY" },
        ),
      ),
      input(
        `button:${i}:text`,
        `Button ${n}: text`,
        textInput(`button:${i}:text`, { initial: textOf(state, `button:${i}:text`), max: 25 }),
      ),
      input(
        `button:${i}:url`,
        `Button ${n}: link`,
        {
          type: "url_text_input",
          action_id: `button:${i}:url`,
          ...(textOf(state, `button:${i}:url`) ? { initial_value: textOf(state, `button:${i}:url`) } : {}),
        },
        { optional: true, hint: "Only for buttons that open a link." },
      ),
    );
  }
  const controls = [];
  if (count < MAX_BUTTONS)
    controls.push({
      type: "button",
      action_id: TEMPLATE_ACTIONS.addButton,
      text: { type: "plain_text", text: "Add button" },
      value: String(count + 1),
    });
  if (count > 0)
    controls.push({
      type: "button",
      action_id: TEMPLATE_ACTIONS.removeButton,
      text: { type: "plain_text", text: "Remove last button" },
      value: String(count - 1),
    });
  blocks.push({ type: "actions", block_id: "button_controls", elements: controls } as KnownBlock);
  blocks.push(
    context(`${count} of ${MAX_BUTTONS} buttons. The template is submitted to the provider for approval.`),
  );
  return modal({
    callbackId: TEMPLATE_CALLBACK,
    title: "New template",
    submit: "Submit",
    blocks,
    metadata: meta,
  });
}

const TEMPLATE_BLOCKS: Record<string, string> = {
  integrationId: "channel",
  name: "name",
  language: "language",
  category: "category",
  bodyText: "body",
  footerText: "footer",
};

export function templateBlockFor(field: string): string | undefined {
  const [top, a, b] = field.split(".");
  if (top === "bodyExamples") return a ? `example:${a}` : "body";
  if (top === "buttons")
    return a === undefined
      ? "button_controls"
      : `button:${a}:${b === "url" ? "url" : b === "type" ? "type" : "text"}`;
  return TEMPLATE_BLOCKS[top ?? ""];
}

export function planTemplate(
  state: StateValues,
  meta: TemplateMeta,
): { body: CreateTemplateInput } | { errors: Record<string, string> } {
  const bodyText = textOf(state, "body") ?? "";
  const examples: Record<string, string> = {};
  // Said here too: the schema checks examples only once every other member is valid.
  const missing: FieldProblem[] = [];
  for (const p of placeholdersOf(bodyText)) {
    const v = textOf(state, `example:${p}`);
    if (v !== undefined) examples[p] = v;
    else missing.push({ field: `bodyExamples.${p}`, rule: "needs an example value" });
  }
  const buttons = [];
  for (let i = 0; i < Math.min(meta.buttons ?? 0, MAX_BUTTONS); i++) {
    const type = selectedOf(state, `button:${i}:type`) ?? "QUICK_REPLY";
    const url = textOf(state, `button:${i}:url`);
    buttons.push({
      type,
      text: textOf(state, `button:${i}:text`) ?? "",
      ...(url !== undefined ? { url } : {}),
    });
  }
  const channel = selectedOf(state, "channel") ?? textOf(state, "channel");
  const footer = textOf(state, "footer");
  const body = {
    integrationId: channel === undefined ? undefined : Number(channel),
    name: textOf(state, "name") ?? "",
    language: (textOf(state, "language") ?? "").trim(),
    category: selectedOf(state, "category"),
    bodyText,
    ...(placeholdersOf(bodyText).length ? { bodyExamples: examples } : {}),
    ...(footer !== undefined ? { footerText: footer } : {}),
    ...(buttons.length ? { buttons } : {}),
  };
  const parsed = createTemplateSchema.safeParse(body);
  const problems = parsed.success ? [] : describeIssues(parsed.error, body);
  for (const m of missing) if (!problems.some((p) => p.field === m.field)) problems.push(m);
  if (problems.length) return { errors: fieldErrors(problems, templateBlockFor, "name") };
  if (!parsed.success) return { errors: {} };
  return { body: parsed.data };
}

export const templateForm: SlackForm<"template", TemplateMeta, CreateTemplateInput> = {
  name: "template form",
  ...askedIn("template", TEMPLATE_CALLBACK, (data, { ch }) =>
    templateModal(data, { ch, chs: data.channels, def: data.defaultChannelId }),
  ),
  refresh: {
    actions: Object.values(TEMPLATE_ACTIONS),
    view: async ({ ctx, meta, state, action }) => {
      if (
        action.action_id === TEMPLATE_ACTIONS.addButton ||
        action.action_id === TEMPLATE_ACTIONS.removeButton
      ) {
        const n = Number(action.value);
        if (Number.isInteger(n) && n >= 0) meta.buttons = n;
      }
      const channelNames = await ctx.core.channelNames();
      return templateModal(
        { channels: meta.chs ?? [], defaultChannelId: meta.def, channelNames },
        meta,
        state,
      );
    },
  },
  submit: {
    check: ({ state, meta }) => {
      const planned = planTemplate(state, meta);
      return "errors" in planned ? planned : { plan: planned.body };
    },
    run: async (body, s) => {
      const { ctx, view, actor } = s;
      const name = String(body.name);
      try {
        const t = await withApi(ctx, actor, "write", `template new (form) "${name}"`, (api) =>
          api.createTemplate(body),
        );
        return {
          after: async () => {
            // By name, as the command says it: "Template *order_update* submitted for approval".
            const text = `Template *${esc(pick(t, "name") ?? name)}* submitted for approval`;
            await postLine(s, "page_facing_up", text);
          },
        };
      } catch (err) {
        return refused(err, templateBlockFor, "name", view);
      }
    },
  },
};
