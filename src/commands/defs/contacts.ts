import { isSupportedCountry } from "libphonenumber-js";
import { z } from "zod";
import { createContactSchema, emailSchema, toE164, updateContactSchema } from "../../api/schemas.ts";
import type { ApiRecord, ContactField } from "../../api/types.ts";
import { esc, slackDate } from "../../blocks/blocks.ts";
import { idArg, limitArg, notAPhone, optionalId, pageArg, requiredText, yesNo } from "../args.ts";
import { changeLine, memberWords } from "../changes.ts";
import { formReply, recordFormReply } from "../forms.ts";
import { UserError } from "../registry.ts";
import { cardReply, customFieldLines, listLine, pageReply, pick, recordPairs, show } from "../render.ts";
import { checkBody } from "./check.ts";
import { announce, cardAfterWrite, contactName, namedWrite, pageLine } from "./common.ts";
import { importFilePreview, importLocalFile } from "./import-file.ts";
import { about, deleteCommand, inTopic, onRecord, showing } from "./shapes.ts";

const command = inTopic("contacts");

const FIRST = ["id", "phone", "first_name", "last_name", "email"];
const NAMES = { first_name: "first", last_name: "last" };
const fullName = (c: Record<string, unknown>) =>
  [pick(c, "first_name"), pick(c, "last_name")].filter(Boolean).join(" ");
const optedOut = (c: Record<string, unknown>) => {
  const v = pick(c, "opted_out", "optedOut", "is_opted_out");
  return v === true ? "opted out" : "";
};

/** The custom fields' labels by key (none when they cannot be read). */
async function fieldLabels(ctx: { api: { listContactFields: () => Promise<{ items: ContactField[] }> } }) {
  const page = await ctx.api.listContactFields().catch(() => ({ items: [] as ContactField[] }));
  return Object.fromEntries(
    page.items
      .filter((f) => typeof f.key === "string")
      .map((f) => [f.key as string, String(f.label || f.key)]),
  );
}

function phoneOf(raw: string, country: string | undefined): string {
  const e164 = toE164(raw, country);
  if (!e164) {
    const known = country && isSupportedCountry(country) ? country : undefined;
    throw new UserError(
      `*phone* ${esc(notAPhone(raw, known).replace(/: give a phone number .*$/, ": write it with its country code, for example +14155550123"))}`,
    );
  }
  return e164;
}

/** The contact with its custom fields keyed by their labels (the key when a field has none, or shares its label). */
function withFieldLabels(c: ApiRecord, fields: ContactField[]): ApiRecord {
  const values = pick(c, "custom_fields");
  if (!values || typeof values !== "object" || Array.isArray(values)) return c;
  const labels = new Map<string, string>();
  for (const f of fields) {
    const label = typeof f.label === "string" ? f.label.trim() : "";
    if (typeof f.key === "string" && label) labels.set(f.key, label);
  }
  const counts = new Map<string, number>();
  for (const l of labels.values()) counts.set(l, (counts.get(l) ?? 0) + 1);
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const label = labels.get(key);
    shown[label && counts.get(label) === 1 && !(label in values) ? label : key] = value;
  }
  const { custom_fields: _s, customFields: _c, ...rest } = c;
  return { ...rest, custom_fields: shown };
}

const optionalText = z.string().optional();
const optionalEmail = z.preprocess((v) => (v === "" ? undefined : v), emailSchema.optional());

/** `contact opt-out|opt-in <id>`: the API's call, then the contact named with what that means now. */
const opting = (word: string, summary: string, call: "optOutContact" | "optInContact", now: string) =>
  command({
    ...onRecord(["contact", word], "contact", "write"),
    ...about(summary, `contact ${word} 12`),
    operations: [call],
    run: async (a, ctx) => namedWrite(ctx, "contact", a.id, contactName(await ctx.api[call](a.id)), now),
  });

export const CONTACT_COMMANDS = [
  command({
    id: "contacts.list",
    words: ["contacts"],
    positionals: [{ name: "search", rest: "text" }],
    options: {
      group: "only members of this group id",
      "opted-out": "yes: only opted-out contacts; no: only active ones",
      page: "page number",
      limit: "contacts per page, 1 to 100",
    },
    schema: z.object({
      search: z.string().optional(),
      group: optionalId,
      "opted-out": yesNo.optional(),
      page: pageArg,
      limit: limitArg,
    }),
    access: "read",
    usage: "contacts [search…] [group=] [opted-out=yes|no] [page=] [limit=]",
    ...about("List and search contacts", "contacts ana opted-out=no"),
    operations: ["listContacts"],
    run: async (a, ctx) => {
      const page = await ctx.api.listContacts({
        search: a.search,
        groupId: a.group,
        optedOut: a["opted-out"],
        page: a.page,
        limit: a.limit,
      });
      return pageReply({
        title: a.search ? `Contacts matching “${a.search}”` : "Contacts",
        one: "contact",
        plural: "contacts",
        page,
        pageLine: pageLine(ctx),
        line: (c) => listLine(c.id, fullName(c), c.phone, c.email, optedOut(c)),
      });
    },
  }),
  command({
    ...showing("contact", 12),
    operations: ["getContact", "listContactFields"],
    run: async (a, ctx) => {
      // The fields' labels are a nicety: when they cannot be read, the keys are shown.
      const [c, fields] = await Promise.all([
        ctx.api.getContact(a.id),
        ctx.api.listContactFields().then(
          (p) => p.items,
          () => [],
        ),
      ]);
      const name = fullName(c);
      const labelled = withFieldLabels(c, fields);
      const out = optedOut(c) !== "";
      const pairs = recordPairs(
        labelled,
        ["phone", "email"],
        [
          "first_name",
          "last_name",
          "custom_fields",
          "opted_out",
          "optedOut",
          "opted_out_at",
          "optedOutAt",
          "created_at",
          "updated_at",
        ],
      );
      if (out) pairs.unshift(["Status", ":no_entry_sign: Opted out: receives no campaigns"]);
      const created = pick(c, "created_at");
      return cardReply({
        title: name || String(pick(c, "phone") ?? `Contact ${a.id}`),
        pairs,
        custom: customFieldLines(pick(labelled, "custom_fields")),
        footer: `Contact ${a.id}${typeof created === "string" ? ` · added ${slackDate(created)}` : ""}`,
        buttons: [
          { text: "Edit", line: `contact edit ${a.id}` },
          { text: "Send message", line: `send contact:${a.id}`, style: "primary" },
          out
            ? { text: "Opt in", line: `contact opt-in ${a.id}` }
            : { text: "Opt out", line: `contact opt-out ${a.id}` },
          ...(typeof pick(c, "phone") === "string"
            ? [{ text: "Conversations", line: `users ${String(pick(c, "phone"))}` }]
            : []),
        ],
      });
    },
  }),
  command({
    words: ["contact", "add"],
    positionals: [{ name: "phone", rest: "text" }],
    options: { first: "first name", last: "last name", email: "e-mail address" },
    extraOptions: "custom field values by field key, for example tier=gold",
    schema: z.object({
      phone: requiredText("a phone number"),
      first: optionalText,
      last: optionalText,
      email: optionalEmail,
      extra: z.record(z.string(), z.string()).default({}),
    }),
    access: "write",
    usage: "contact add <phone> [first=] [last=] [email=] [<field-key>=]",
    ...about("Create a contact", "contact add +1 415 555 0123 first=Ana last=Lima email=ana@example.com"),
    operations: ["createContact"],
    run: async (a, ctx) => {
      const body = {
        phone: phoneOf(a.phone, ctx.defaultCountry),
        first_name: a.first,
        last_name: a.last,
        email: a.email,
        ...(Object.keys(a.extra).length ? { custom_fields: a.extra } : {}),
      };
      checkBody(createContactSchema, body, NAMES);
      const c = await ctx.api.createContact(body);
      const text = `Contact *${esc(fullName(c) || body.phone)}* created`;
      return c.id !== undefined
        ? cardAfterWrite(ctx, "contact.show", Number(c.id), text)
        : announce(ctx, text, c, FIRST);
    },
  }),
  command({
    ...onRecord(["contact", "edit"], "contact", "write"),
    options: { phone: "new phone number", first: "first name", last: "last name", email: "e-mail address" },
    extraOptions: "custom field values by field key (the other custom fields are kept)",
    schema: z.object({
      id: idArg,
      phone: z.string().optional(),
      first: optionalText,
      last: optionalText,
      // `email=""` is refused in words: the API keeps an address once given (no empty one).
      email: z
        .string()
        .min(1, { error: "cannot be cleared: a contact keeps an e-mail address once given; give another" })
        .pipe(emailSchema)
        .optional(),
      extra: z.record(z.string(), z.string()).default({}),
    }),
    usage: "contact edit <id> [phone=] [first=] [last=] [email=] [<field-key>=]",
    ...about("Change a contact", "contact edit 12 last=Souza loyalty_tier=gold"),
    operations: ["updateContact", "getContact", "listContactFields"],
    run: async (a, ctx) => {
      const bare =
        [a.phone, a.first, a.last, a.email].every((v) => v === undefined) && !Object.keys(a.extra).length;
      if (bare) return recordFormReply(ctx, "contact", a.id);
      const body: Record<string, unknown> = {
        phone: a.phone !== undefined ? phoneOf(a.phone, ctx.defaultCountry) : undefined,
        first_name: a.first,
        last_name: a.last,
        email: a.email,
      };
      const hasCustom = Object.keys(a.extra).length > 0;
      if (hasCustom) checkBody(updateContactSchema, { ...body, custom_fields: a.extra }, NAMES);
      else checkBody(updateContactSchema, body, NAMES);
      if (hasCustom) {
        // The API replaces custom_fields whole on update: merge with what the contact has.
        const current = await ctx.api.getContact(a.id);
        const existing = (pick(current, "custom_fields") ?? {}) as Record<string, unknown>;
        body.custom_fields = { ...existing, ...a.extra };
      }
      const c = await ctx.api.updateContact(a.id, body);
      // What changed, by name: "*Ana García*: first name and city changed".
      const labels = hasCustom ? await fieldLabels(ctx) : {};
      const changed = [
        ...(["phone", "first_name", "last_name", "email"] as const)
          .filter((k) => body[k] !== undefined)
          .map((k) => memberWords(k)),
        ...Object.keys(a.extra).map((k) => memberWords(k, labels)),
      ];
      return cardAfterWrite(
        ctx,
        "contact.show",
        a.id,
        changeLine(fullName(c) || show(pick(c, "phone") ?? `Contact ${a.id}`), changed, [
          ...(["first_name", "last_name"] as const).filter((k) => body[k] === "").map((k) => memberWords(k)),
          ...Object.keys(a.extra)
            .filter((k) => a.extra[k] === "")
            .map((k) => memberWords(k, labels)),
        ]),
      );
    },
  }),
  command(
    deleteCommand({
      noun: "contact",
      example: "contact delete 20",
      api: "Contact",
      name: contactName,
      first: FIRST,
    }),
  ),
  opting("opt-out", "Mark a contact as opted out", "optOutContact", "opted out: campaigns skip them"),
  opting("opt-in", "Revert a contact's opt-out", "optInContact", "opted in again"),
  command({
    words: ["import"],
    positionals: [{ name: "path", rest: "text" }],
    options: {
      group: "add every imported contact to this group id",
      update: "yes: update existing contacts; no (default): skip them",
    },
    schema: z.object({ path: z.string().optional(), group: optionalId, update: yesNo.default(false) }),
    access: "write",
    usage: "import [<file.csv|file.xlsx>] [group=] [update=yes|no]",
    ...about(
      "Import contacts from a CSV or xlsx file (Slack: an upload form; shell: a local path)",
      "import ./contacts.csv group=2 update=yes",
    ),
    help: "In the shell the file is read from the local disk as an upload is: its headers are mapped (Mobile, First Name, E-mail…), phones normalized and every row checked. The preview shows the columns, a sample and the rows that will fail, and asks y/N (piped input: `--yes`); then the valid rows are imported and the failing ones written to an error report next to the file. In Slack, share the file with the bot instead.",
    noun: "group",
    operations: ["importContacts", "listGroups", "listContactFields", "getGroup"],
    preview: importFilePreview,
    run: async (a, ctx) => {
      if (ctx.actor.via !== "shell") {
        if (a.path) {
          throw new UserError(
            "`/sb import <path>` reads a file on the Switchboard host, so it only runs in the shell. In Slack, run `/sb import` alone for the upload form, or share the CSV or xlsx file with the bot.",
            false,
          );
        }
        const load = async () => ({ groups: (await ctx.api.listGroups()).items });
        return formReply(ctx, { kind: "import", load, instead: "import" }, "Opening the import form…");
      }
      return importLocalFile(a, ctx);
    },
  }),
];
