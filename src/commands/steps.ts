// Workflow Builder steps: what each custom step does, on the
// inputs as Workflow Builder hands them over (texts, one key=value a line),
// checked with the API's own schemas and the commands' rules before any
// write, and answered as the step's outputs. A problem is a UserError naming
// the input and the rule, in words a workflow author can act on. No front
// end here: src/slack/listeners/functions/ runs these through the core's
// perform() (access check and audit).
import {
  createContactSchema,
  emailSchema,
  type SendMessageInput,
  sendMessageSchema,
  toE164,
  updateContactSchema,
} from "../api/schemas.ts";
import type { Contact, Group, MessagingApi } from "../api/types.ts";
import { idArg } from "./args.ts";
import { checkBody } from "./defs/check.ts";
import { resolveChannel } from "./defs/common.ts";
import { memberCount } from "./defs/groups.ts";
import { UserError } from "./registry.ts";
import { pick } from "./render.ts";

/** The inputs of one execution, as Slack sends them (absent, empty, or a value). */
export type StepInputs = Record<string, unknown>;

export interface StepOptions {
  /** The workspace's default messaging channel (CommandCore.defaultChannelId). */
  defaultChannelId?: number;
  /** The workspace's country (CommandCore.defaultCountry), for phone numbers written without a country code. */
  defaultCountry?: string;
}

export type StepOutputs = Record<string, string | number | boolean>;

const fail = (message: string) => new UserError(message, false);

/** Characters of an input an error quotes at most. */
const QUOTE_CHARS = 40;

/**
 * An input as an error quotes it: at most a short excerpt, in quotes, control
 * characters (a NUL…) and lone surrogates shown as U+FFFD. An error never
 * carries a whole input (a megabyte) nor what no store can keep.
 */
export function quoted(raw: string): string {
  return `"${excerpt(raw)}"`;
}

/** The excerpt `quoted` puts in quotes. */
export function excerpt(raw: string): string {
  const cleaned = raw
    .replace(/\s+/g, " ")
    .replace(/[\p{Cc}\p{Cs}]/gu, "\uFFFD")
    .trim();
  const chars = Array.from(cleaned);
  return `${chars.slice(0, QUOTE_CHARS).join("")}${chars.length > QUOTE_CHARS ? "…" : ""}`;
}

/** A text input: trimmed, undefined when absent or blank. */
export function textInput(inputs: StepInputs, name: string): string | undefined {
  const v = inputs[name];
  if (v === undefined || v === null) return undefined;
  const s = (typeof v === "string" ? v : String(v)).trim();
  return s === "" ? undefined : s;
}

/** `key=value`, one a line (blank lines skipped): placeholder values, custom fields. */
export function keyValueLines(inputs: StepInputs, name: string): Record<string, string> {
  const raw = textInput(inputs, name);
  const out: Record<string, string> = {};
  if (!raw) return out;
  raw.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    const eq = line.indexOf("=");
    const key = eq > 0 ? line.slice(0, eq).trim() : "";
    if (!key)
      throw fail(
        `Input ${name}, line ${i + 1}: ${quoted(line)} is not key=value. Write one per line, for example name=Ana`,
      );
    if (key in out) throw fail(`Input ${name}: ${excerpt(key)} is given twice (lines with ${excerpt(key)}=)`);
    out[key] = line.slice(eq + 1).trim();
  });
  return out;
}

function phoneInput(inputs: StepInputs, name: string, opts: StepOptions): string | undefined {
  const raw = textInput(inputs, name);
  if (raw === undefined) return undefined;
  const e164 = toE164(raw, opts.defaultCountry);
  if (!e164)
    throw fail(
      `Input ${name}: ${quoted(raw)} is not a phone number. Write it with its country code, for example +14155550123`,
    );
  return e164;
}

function idInput(inputs: StepInputs, name: string): number | undefined {
  const raw = textInput(inputs, name);
  if (raw === undefined) return undefined;
  const id = idArg.safeParse(raw);
  if (!id.success)
    throw fail(`Input ${name}: ${quoted(raw)} is not an id (a positive whole number, like 12)`);
  return id.data;
}

/** Exactly one of `names` given, or a UserError saying which were. */
function exactlyOne(inputs: StepInputs, names: string[]): string {
  const given = names.filter((n) => textInput(inputs, n) !== undefined);
  const list = `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  if (given.length === 1) return given[0]!;
  throw fail(
    given.length === 0
      ? `Give exactly one of the inputs ${list}: none was given`
      : `Give exactly one of the inputs ${list}: ${given.join(" and ")} were given`,
  );
}

/** Command-line hints (`channel=<id>`) in the words of a step's inputs. */
function inStepWords(err: unknown): unknown {
  if (!(err instanceof UserError)) return err;
  const message = err.message
    .replace(/Add `channel=<id>`(, for example `channel=\d+`)?/, "Set the step's channel input")
    .replace(/add `channel=<id>`/, "set the step's channel input");
  return message === err.message ? err : fail(message);
}

// ---------------------------------------------------------------- contacts

const samePhone = (c: Contact, e164: string, opts: StepOptions) =>
  typeof c.phone === "string" && toE164(c.phone, opts.defaultCountry) === e164;
const sameEmail = (c: Contact, email: string) =>
  typeof c.email === "string" && c.email.trim().toLowerCase() === email.toLowerCase();

/** Contacts whose phone (E.164) or e-mail (any case) is exactly this one; the API's search is wider. */
async function contactsMatching(
  api: MessagingApi,
  by: { phone: string } | { email: string },
  opts: StepOptions,
): Promise<Contact[]> {
  const search = "phone" in by ? by.phone : by.email;
  const page = await api.listContacts({ search, limit: 100 });
  return page.items.filter((c) => ("phone" in by ? samePhone(c, by.phone, opts) : sameEmail(c, by.email)));
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The one contact with this phone; none or several is the workflow author's to sort out. */
async function contactByPhone(api: MessagingApi, phone: string, opts: StepOptions): Promise<Contact> {
  const found = await contactsMatching(api, { phone }, opts);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw fail(`No contact has the phone number ${phone} (input phone)`);
  throw fail(
    `${plural(found.length, "contact has", "contacts have")} the phone number ${phone}: give the input contact_id instead`,
  );
}

/** A group by id (`12`, `#12`) or by its name (any case); a name several groups share is refused. */
async function groupByIdOrName(api: MessagingApi, raw: string, input: string): Promise<Group> {
  const groups = (await api.listGroups()).items;
  if (/^#?\d+$/.test(raw)) {
    const id = Number(raw.replace(/^#/, ""));
    const g = groups.find((x) => Number(x.id) === id);
    if (g) return g;
  }
  const named = groups.filter(
    (g) => typeof g.name === "string" && g.name.trim().toLowerCase() === raw.toLowerCase(),
  );
  if (named.length === 1) return named[0]!;
  if (named.length === 0)
    throw fail(
      `Input ${input}: no group has the id or name ${quoted(raw)}. Check the group's name in Switchboard`,
    );
  throw fail(
    `Input ${input}: ${named.length} groups are named ${quoted(raw)} (ids ${named.map((g) => g.id).join(", ")}): give the group's id instead`,
  );
}

const countOf = (g: Group | undefined): number | undefined => {
  const n = Number(g ? memberCount(g) : undefined);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

// ---------------------------------------------------------------- the steps

/** Names of the API's members in the step's inputs (for checkBody's messages). */
const SEND_INPUTS = {
  to: "phone",
  contactId: "contact_id",
  chatUserId: "chat_user_id",
  channelId: "channel",
  template: "template_name",
};

/** Send a message: to a phone, contact or chat user; text, or a template with its values. */
export async function sendMessageStep(
  api: MessagingApi,
  inputs: StepInputs,
  opts: StepOptions,
): Promise<StepOutputs> {
  const recipient = exactlyOne(inputs, ["phone", "contact_id", "chat_user_id"]);
  const body: Partial<SendMessageInput> = {};
  if (recipient === "phone") body.to = phoneInput(inputs, "phone", opts);
  else if (recipient === "contact_id") body.contactId = idInput(inputs, "contact_id");
  else body.chatUserId = idInput(inputs, "chat_user_id");
  const text = textInput(inputs, "text");
  const templateName = textInput(inputs, "template_name");
  const language = textInput(inputs, "template_language");
  const values = keyValueLines(inputs, "template_values");
  if (templateName === undefined) {
    if (text === undefined)
      throw fail("Give the input text, or a template (inputs template_name and template_language)");
    if (language !== undefined || Object.keys(values).length)
      throw fail("The inputs template_language and template_values need template_name too");
    Object.assign(body, { type: "text", text });
  } else {
    if (text !== undefined)
      throw fail("Give either the input text or a template, not both: a template has its own text");
    if (language === undefined)
      throw fail("The input template_language is required with a template, for example en");
    Object.assign(body, {
      type: "template",
      template: {
        name: templateName,
        language,
        ...(Object.keys(values).length ? { parameters: values } : {}),
      },
    });
  }
  const channel = idInput(inputs, "channel");
  // Every rule checked before the channel lookup, so bad input makes no request.
  checkBody(sendMessageSchema, { ...body, channelId: channel ?? opts.defaultChannelId ?? 1 }, SEND_INPUTS);
  let channelId: number;
  try {
    channelId = await resolveChannel({ api, defaultChannelId: opts.defaultChannelId }, channel);
  } catch (err) {
    throw inStepWords(err);
  }
  const msg = await api.sendMessage({ ...(body as SendMessageInput), channelId });
  return {
    message_id: String(msg.id ?? ""),
    status: String(pick(msg, "status") ?? ""),
  };
}

/** Add or update a contact, found by phone; custom fields are merged with the ones it has. */
export async function upsertContactStep(
  api: MessagingApi,
  inputs: StepInputs,
  opts: StepOptions,
): Promise<StepOutputs> {
  const phone = phoneInput(inputs, "phone", opts);
  if (!phone) throw fail("The input phone is required: the contact's phone number, with its country code");
  const given = {
    first_name: textInput(inputs, "first_name"),
    last_name: textInput(inputs, "last_name"),
    email: textInput(inputs, "email"),
  };
  const fields = keyValueLines(inputs, "custom_fields");
  const hasFields = Object.keys(fields).length > 0;
  const groupRaw = textInput(inputs, "group");
  // Every rule checked before any request (create's schema covers update's members).
  checkBody(createContactSchema, { phone, ...given, ...(hasFields ? { custom_fields: fields } : {}) });
  const group = groupRaw ? await groupByIdOrName(api, groupRaw, "group") : undefined;

  const found = await contactsMatching(api, { phone }, opts);
  if (found.length > 1)
    throw fail(
      `${found.length} contacts have the phone number ${phone}: Switchboard cannot tell which one to update`,
    );
  let contactId: number;
  let created = false;
  const current = found[0];
  if (!current) {
    const c = await api.createContact({
      phone,
      ...given,
      ...(hasFields ? { custom_fields: fields } : {}),
    });
    contactId = Number(c.id);
    created = true;
  } else {
    contactId = Number(current.id);
    const change: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(given)) if (v !== undefined) change[k] = v;
    if (hasFields) {
      // The API replaces custom_fields whole on update: merge with what the contact has.
      const existing = (pick(await api.getContact(contactId), "custom_fields") ?? {}) as Record<
        string,
        unknown
      >;
      change.custom_fields = { ...existing, ...fields };
    }
    if (Object.keys(change).length) {
      checkBody(updateContactSchema, change);
      await api.updateContact(contactId, change);
    }
  }
  if (group) await api.addGroupContacts(Number(group.id), [contactId]);
  return { contact_id: String(contactId), created };
}

/** Add a contact (by id or phone) to a group (by id or name). */
export async function addToGroupStep(
  api: MessagingApi,
  inputs: StepInputs,
  opts: StepOptions,
): Promise<StepOutputs> {
  const which = exactlyOne(inputs, ["contact_id", "phone"]);
  const contactId = which === "contact_id" ? idInput(inputs, "contact_id") : undefined;
  const phone = which === "phone" ? phoneInput(inputs, "phone", opts) : undefined;
  const groupRaw = textInput(inputs, "group");
  if (!groupRaw) throw fail("The input group is required: the group's id or its name");
  const group = await groupByIdOrName(api, groupRaw, "group");
  const id = contactId ?? Number((await contactByPhone(api, phone!, opts)).id);
  const answer = await api.addGroupContacts(Number(group.id), [id]);
  // The count is a nicety: when the list cannot be read, the step still succeeded.
  const after = await api.listGroups().then(
    (p) => p.items.find((g) => Number(g.id) === Number(group.id)),
    () => undefined,
  );
  const n = countOf(after);
  const added = pick(answer, "added");
  return {
    group_id: String(group.id),
    contact_id: String(id),
    ...(typeof added === "number" ? { already_member: added === 0 } : {}),
    ...(n !== undefined ? { member_count: n } : {}),
  };
}

/** Look up a contact by phone or e-mail: found=false when none has it, a failure when several do. */
export async function lookUpContactStep(
  api: MessagingApi,
  inputs: StepInputs,
  opts: StepOptions,
): Promise<StepOutputs> {
  const which = exactlyOne(inputs, ["phone", "email"]);
  let by: { phone: string } | { email: string };
  if (which === "phone") by = { phone: phoneInput(inputs, "phone", opts)! };
  else {
    const email = textInput(inputs, "email")!;
    const ok = emailSchema.safeParse(email);
    if (!ok.success)
      throw fail(`Input email: ${quoted(email)} ${ok.error.issues[0]?.message ?? "is not valid"}`);
    by = { email };
  }
  const found = await contactsMatching(api, by, opts);
  const what = "phone" in by ? `the phone number ${by.phone}` : `the e-mail address ${by.email}`;
  if (found.length > 1)
    throw fail(`${found.length} contacts have ${what}: the look-up needs exactly one. Tidy the duplicates`);
  const c = found[0];
  if (!c) return { found: false };
  const text = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
  const optedOut = pick(c, "opted_out", "optedOut", "is_opted_out");
  return {
    found: true,
    contact_id: String(c.id),
    phone: text(c.phone),
    first_name: text(pick(c, "first_name")),
    last_name: text(pick(c, "last_name")),
    email: text(c.email),
    opted_out: optedOut === true,
  };
}
