// `/sb contact edit <id>` and `/sb user edit <id>` without options: forms
// prefilled with the record, custom fields included, each input of the kind
// its field definition says (number, date, yes/no, text). Submitted, custom
// fields of a contact are merged with what it has now, because the API
// replaces them whole.
import type { KnownBlock, ModalView } from "@slack/types";
import type { UpdateChatUserInput, UpdateContactInput } from "../../api/schemas.ts";
import {
  describeIssues,
  type FieldProblem,
  toE164,
  updateChatUserSchema,
  updateContactSchema,
} from "../../api/schemas.ts";
import type { ApiRecord, ContactField, MessagingApi } from "../../api/types.ts";
import { esc } from "../../blocks/blocks.ts";
import { changedMembers, changeLine, clearedMembers } from "../../commands/changes.ts";
import { pick } from "../../commands/render.ts";
import { withApi } from "../perform.ts";
import {
  clearAsked,
  clearBox,
  emptiedBlocks,
  emptiedFields,
  nothingChanged,
  untouched,
} from "./edit-changes.ts";
import { fieldErrors } from "./field-errors.ts";
import { askedIn, type SlackForm } from "./form.ts";
import {
  context,
  cut,
  dateOf,
  input,
  modal,
  numberOf,
  option,
  type StateValues,
  selectedOf,
  staticSelect,
  textInput,
  textOf,
  VIEW_LIMITS,
} from "./kit.ts";
import { postLine, refused } from "./submission.ts";

export const CONTACT_EDIT_CALLBACK = "sb_contact_edit";
export const USER_EDIT_CALLBACK = "sb_user_edit";

type FieldKind = "text" | "number" | "date" | "boolean";
export interface EditMeta {
  ch?: string;
  id: number;
  /** Custom field key → kind, as shown in the form. */
  f: Record<string, FieldKind>;
}

const kindOf = (f: ContactField): FieldKind =>
  f.type === "number" || f.type === "date" || f.type === "boolean" ? f.type : "text";

const str = (v: unknown) => (v === undefined || v === null ? "" : String(v));

function customInput(f: ContactField, value: unknown, chatUser: boolean): KnownBlock {
  const key = f.key as string;
  const block = `field:${key}`;
  // Its label, as people named it; the key only where the field has no label.
  const label = cut(`${f.label || key}`, 200);
  const kind = kindOf(f);
  const v = str(value);
  if (kind === "number" && !chatUser) {
    const ok = v !== "" && Number.isFinite(Number(v));
    return input(
      block,
      label,
      {
        type: "number_input",
        action_id: block,
        is_decimal_allowed: true,
        ...(ok ? { initial_value: v } : {}),
      },
      { optional: true },
    );
  }
  if (kind === "date") {
    const ok = /^\d{4}-\d{2}-\d{2}/.test(v);
    return input(
      block,
      label,
      { type: "datepicker", action_id: block, ...(ok ? { initial_date: v.slice(0, 10) } : {}) },
      { optional: true },
    );
  }
  if (kind === "boolean" && !chatUser) {
    const initial =
      value === true || v === "true" ? "true" : value === false || v === "false" ? "false" : undefined;
    return input(
      block,
      label,
      staticSelect(block, [option("Yes", "true"), option("No", "false")], {
        initial,
        placeholder: "Not set",
      }),
      { optional: true },
    );
  }
  return input(block, label, textInput(block, { initial: v, max: 2000 }), { optional: true });
}

/** Whom the form edits, by name (the title has no room for it, and no id is shown). */
const whoLine = (name: string, fallback: string): KnownBlock =>
  context(`Editing ${name ? `*${esc(cut(name, 150))}*` : fallback}`);

/** "Ana García", else the phone. */
const contactName = (c: ApiRecord | undefined): string =>
  [str(pick(c ?? {}, "first_name")), str(pick(c ?? {}, "last_name"))].filter(Boolean).join(" ") ||
  str(pick(c ?? {}, "phone"));
const userName = (u: ApiRecord | undefined): string => {
  const std = (pick(u ?? {}, "standardFields") ?? {}) as ApiRecord;
  return str(pick(std, "name") ?? pick(u ?? {}, "name"));
};
/** A chat user's values as the form sends them: its own members and custom values, as text. */
const userValues = (u: ApiRecord | undefined): ApiRecord => {
  const std = (pick(u ?? {}, "standardFields") ?? {}) as ApiRecord;
  const own = ["name", "email", "phone", "address", "avatar"].map((k) => [
    k,
    str(pick(std, k) ?? pick(u ?? {}, k)),
  ]);
  const custom = Object.entries(customOf(u ?? {}, "customFields", "custom_fields")).map(([k, v]) => [
    k,
    str(v),
  ]);
  return {
    standardFields: Object.fromEntries(own.filter(([, v]) => v !== "")),
    customFields: Object.fromEntries(custom.filter(([, v]) => v !== "")),
  };
};

/** The custom fields' labels by key. */
async function labelsOf(api: MessagingApi): Promise<Record<string, string>> {
  const page = await api.listContactFields().catch(() => ({ items: [] as ContactField[] }));
  return Object.fromEntries(
    page.items
      .filter((f) => typeof f.key === "string")
      .map((f) => [f.key as string, String(f.label || f.key)]),
  );
}

const customOf = (r: ApiRecord, ...keys: string[]) => (pick(r, ...keys) ?? {}) as Record<string, unknown>;

export function contactEditModal(
  contact: ApiRecord,
  fields: ContactField[],
  meta: Omit<EditMeta, "f">,
): ModalView {
  const custom = customOf(contact, "custom_fields", "customFields");
  const shown = fields.slice(0, VIEW_LIMITS.blocks - 10);
  const blocks: KnownBlock[] = [
    whoLine(contactName(contact), "this contact"),
    input("phone", "Phone", textInput("phone", { initial: str(pick(contact, "phone")), max: 40 }), {
      hint: "With its country code, for example +14155550123.",
    }),
    input(
      "first_name",
      "First name",
      textInput("first_name", { initial: str(pick(contact, "first_name")), max: 200 }),
      { optional: true },
    ),
    input(
      "last_name",
      "Last name",
      textInput("last_name", { initial: str(pick(contact, "last_name")), max: 200 }),
      { optional: true },
    ),
    input(
      "email",
      "E-mail",
      {
        type: "email_text_input",
        action_id: "email",
        ...(str(pick(contact, "email")) ? { initial_value: str(pick(contact, "email")) } : {}),
      },
      { optional: true },
    ),
    ...shown.map((f) => customInput(f, custom[f.key as string], false)),
  ];
  if (fields.length > shown.length)
    blocks.push(context(`${fields.length - shown.length} more custom fields are kept as they are.`));
  blocks.push(clearBox());
  const f = Object.fromEntries(shown.map((x) => [x.key as string, kindOf(x)]));
  return modal({
    callbackId: CONTACT_EDIT_CALLBACK,
    title: "Edit contact",
    submit: "Save",
    blocks,
    metadata: { ...meta, f },
  });
}

export function userEditModal(user: ApiRecord, fields: ContactField[], meta: Omit<EditMeta, "f">): ModalView {
  const std = (pick(user, "standardFields") ?? {}) as ApiRecord;
  const get = (k: string) => str(pick(std, k) ?? pick(user, k));
  const custom = customOf(user, "customFields", "custom_fields");
  const shown = fields.slice(0, VIEW_LIMITS.blocks - 10);
  const blocks: KnownBlock[] = [
    whoLine(userName(user) || get("phone") || get("email"), "this chat user"),
    input("name", "Name", textInput("name", { initial: get("name"), max: 200 }), { optional: true }),
    input(
      "email",
      "E-mail",
      {
        type: "email_text_input",
        action_id: "email",
        ...(get("email") ? { initial_value: get("email") } : {}),
      },
      { optional: true },
    ),
    input("phone", "Phone", textInput("phone", { initial: get("phone"), max: 40 }), { optional: true }),
    input(
      "address",
      "Address",
      textInput("address", { initial: get("address"), max: 500, multiline: true }),
      { optional: true },
    ),
    input(
      "avatar",
      "Avatar URL",
      {
        type: "url_text_input",
        action_id: "avatar",
        ...(get("avatar") ? { initial_value: get("avatar") } : {}),
      },
      { optional: true },
    ),
    ...shown.map((f) => customInput(f, custom[f.key as string], true)),
    clearBox(),
  ];
  // A chat user's custom values are text; a date field is picked as a date (kept as YYYY-MM-DD).
  const f = Object.fromEntries(
    shown.map((x) => [x.key as string, kindOf(x) === "date" ? ("date" as const) : ("text" as const)]),
  );
  return modal({
    callbackId: USER_EDIT_CALLBACK,
    title: "Edit chat user",
    submit: "Save",
    blocks,
    metadata: { ...meta, f },
  });
}

function customValues(
  state: StateValues,
  meta: Partial<EditMeta>,
): { values: Record<string, string | number | boolean | null>; problems: FieldProblem[] } {
  const values: Record<string, string | number | boolean | null> = {};
  const problems: FieldProblem[] = [];
  for (const [key, kind] of Object.entries(meta.f ?? {})) {
    const block = `field:${key}`;
    if (kind === "number") {
      const v = numberOf(state, block);
      if (v === undefined) values[key] = null;
      else if (Number.isFinite(Number(v))) values[key] = Number(v);
      else problems.push({ field: `custom_fields.${key}`, rule: "must be a number" });
    } else if (kind === "date") values[key] = dateOf(state, block) ?? null;
    else if (kind === "boolean") {
      const v = selectedOf(state, block);
      values[key] = v === undefined ? null : v === "true";
    } else values[key] = textOf(state, block)?.trim() ?? null;
  }
  return { values, problems };
}

const blockForContact = (field: string) => {
  const [top, key] = field.split(".");
  if ((top === "custom_fields" || top === "customFields") && key) return `field:${key}`;
  if (top === "standardFields" && key) return key;
  return ["phone", "first_name", "last_name", "email", "name", "address", "avatar"].includes(top ?? "")
    ? top
    : undefined;
};
export const editBlockFor = blockForContact;

/** The PATCH body; custom fields are merged into `current` because the API replaces them whole. */
export function planContactEdit(
  state: StateValues,
  meta: Partial<EditMeta>,
  current: Record<string, unknown>,
  defaultCountry?: string,
): { body: UpdateContactInput } | { errors: Record<string, string> } {
  const { values, problems } = customValues(state, meta);
  const phoneRaw = textOf(state, "phone") ?? "";
  const phone = toE164(phoneRaw, defaultCountry);
  if (!phone)
    problems.push({
      field: "phone",
      rule: phoneRaw
        ? "is not a phone number: write it with its country code, for example +14155550123"
        : "is required",
    });
  const custom: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(values)) {
    if (v === null) delete custom[k];
    else custom[k] = v;
  }
  const email = textOf(state, "email")?.trim();
  const body: Record<string, unknown> = {
    ...(phone ? { phone } : {}),
    first_name: textOf(state, "first_name")?.trim() ?? "",
    last_name: textOf(state, "last_name")?.trim() ?? "",
    ...(email ? { email } : {}),
    custom_fields: custom,
  };
  const parsed = updateContactSchema.safeParse(body);
  if (!problems.length && !parsed.success) problems.push(...describeIssues(parsed.error, body));
  if (problems.length || !parsed.success) return { errors: fieldErrors(problems, blockForContact, "phone") };
  return { body: parsed.data };
}

export function planUserEdit(
  state: StateValues,
  meta: Partial<EditMeta>,
  defaultCountry?: string,
  /** The blocks emptied with the box ticked: sent empty, which clears them. */
  cleared: string[] = [],
): { body: UpdateChatUserInput } | { errors: Record<string, string> } {
  const problems: FieldProblem[] = [];
  const standardFields: Record<string, string> = {};
  for (const k of ["name", "email", "address", "avatar"]) {
    const v = textOf(state, k)?.trim();
    if (v) standardFields[k] = v;
    else if (cleared.includes(k)) standardFields[k] = "";
  }
  const phoneRaw = textOf(state, "phone")?.trim();
  if (phoneRaw) {
    const phone = toE164(phoneRaw, defaultCountry);
    if (phone) standardFields.phone = phone;
    else
      problems.push({
        field: "standardFields.phone",
        rule: "is not a phone number: write it with its country code, for example +14155550123",
      });
  }
  const customFields: Record<string, string> = {};
  for (const [key, kind] of Object.entries(meta.f ?? {})) {
    const v = kind === "date" ? dateOf(state, `field:${key}`) : textOf(state, `field:${key}`)?.trim();
    if (v) customFields[key] = v;
    else if (cleared.includes(`field:${key}`)) customFields[key] = "";
  }
  const body = {
    ...(Object.keys(standardFields).length ? { standardFields } : {}),
    ...(Object.keys(customFields).length ? { customFields } : {}),
  };
  const parsed = updateChatUserSchema.safeParse(body);
  if (!problems.length && !parsed.success) problems.push(...describeIssues(parsed.error, body));
  if (problems.length || !parsed.success) return { errors: fieldErrors(problems, blockForContact, "name") };
  return { body: parsed.data };
}

export const contactEditForm: SlackForm<"contact", EditMeta, number> = {
  name: "contact edit form",
  ...askedIn("contact", CONTACT_EDIT_CALLBACK, (data, { ch }) =>
    contactEditModal(data.record, data.fields, { ch, id: data.id }),
  ),
  submit: {
    // Checked with no custom fields first, so bad input makes no request at all.
    check: ({ ctx, state, meta, view }) => {
      const first = planContactEdit(state, meta, {}, ctx.core.defaultCountry);
      if ("errors" in first) return first;
      const emptied = emptiedFields(view, state, {
        email:
          "An e-mail address cannot be cleared: a contact keeps one once given. Give another, or type it back.",
      });
      return emptied ? { errors: emptied } : { plan: Number(meta.id) };
    },
    run: async (id, s) => {
      const { ctx, view, meta, state, actor } = s;
      if (untouched(view, state)) return nothingChanged("Edit contact");
      try {
        const line = await withApi(ctx, actor, "write", `contact edit ${id} (form)`, async (api) => {
          const current = await api.getContact(id);
          const planned = planContactEdit(
            state,
            meta,
            (pick(current, "custom_fields") ?? {}) as Record<string, unknown>,
            ctx.core.defaultCountry,
          );
          if ("errors" in planned) throw new Error("contact edit: the form changed between checks");
          const after = await api.updateContact(id, planned.body);
          const how = {
            members: ["phone", "first_name", "last_name", "email"],
            custom: "custom_fields",
            labels: await labelsOf(api),
            whole: true,
          };
          return changeLine(
            contactName(after) || contactName(current) || `Contact ${id}`,
            changedMembers(current, after, how),
            clearedMembers(current, after, how),
          );
        });
        return { after: () => postLine(s, "pencil2", line) };
      } catch (err) {
        return refused(err, editBlockFor, "phone", view);
      }
    },
  },
};

export const userEditForm: SlackForm<"chat-user", EditMeta, UpdateChatUserInput> = {
  name: "user edit form",
  ...askedIn("chat-user", USER_EDIT_CALLBACK, (data, { ch }) =>
    userEditModal(data.record, data.fields, { ch, id: data.id }),
  ),
  submit: {
    check: ({ ctx, state, meta, view }) => {
      const emptied = emptiedFields(view, state);
      if (emptied) return { errors: emptied };
      const cleared = clearAsked(state) ? Object.keys(emptiedBlocks(view, state)) : [];
      const planned = planUserEdit(state, meta, ctx.core.defaultCountry, cleared);
      return "errors" in planned ? planned : { plan: planned.body };
    },
    run: async (body, s) => {
      const { ctx, view, meta, actor } = s;
      if (untouched(view, s.state)) return nothingChanged("Edit chat user");
      const id = Number(meta.id);
      try {
        const line = await withApi(ctx, actor, "write", `user edit ${id} (form)`, async (api) => {
          const before = await api.getChatUser(id).catch(() => undefined);
          const after = await api.updateChatUser(id, body);
          const name = userName(after) || userName(before) || `Chat user ${id}`;
          // What the form sent that differs from before, by label; what it emptied (the box ticked).
          const sent = { ...body, customFields: body.customFields ?? {} };
          const how = {
            members: ["name", "email", "phone", "address", "avatar"],
            standard: "standardFields",
            custom: "customFields",
            labels: await labelsOf(api),
          };
          return changeLine(
            name,
            changedMembers(userValues(before), sent, how),
            clearedMembers(userValues(before), sent, how),
          );
        });
        return { after: () => postLine(s, "pencil2", line) };
      } catch (err) {
        return refused(err, editBlockFor, "name", view);
      }
    },
  },
};
