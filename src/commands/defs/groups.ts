import { z } from "zod";
import { context, count, esc, header, section, slackDate } from "../../blocks/blocks.ts";
import { memberCount } from "../../domain/records.ts";
import { idArg, idList, requiredText } from "../args.ts";
import type { CommandContext } from "../registry.ts";
import { cardReply, listLine, pageReply, pick, show } from "../render.ts";
import { announce, contactName, namedWrite, nameOf, quoted, relatedNames } from "./common.ts";
import { about, deleteCommand, inTopic, listing, onRecord, showing } from "./shapes.ts";

const command = inTopic("groups");

const FIRST = ["id", "name", "description"];

export { memberCount };

/** `group <id> add|remove <contact-id…>`: its words, and its arguments: the group, and contacts named once each. */
const members = (verb: "add" | "remove") => ({
  id: `group.members.${verb}`,
  words: ["group", "<id>", verb],
  usage: `group <id> ${verb} <contact-id…>`,
  noun: "group",
  positionals: [{ name: "contacts", rest: "list" as const }],
  schema: z.object({
    id: idArg,
    contacts: idList.refine((l) => new Set(l).size === l.length, { error: "must not repeat a contact id" }),
  }),
  access: "write" as const,
});

export const GROUP_COMMANDS = [
  command({
    ...listing("groups"),
    summary: "List the contact groups with their member counts",
    operations: ["listGroups"],
    run: async (_a, ctx) =>
      pageReply({
        title: "Groups",
        one: "group",
        plural: "groups",
        page: await ctx.api.listGroups(),
        line: (g) => {
          const n = memberCount(g);
          return listLine(
            g.id,
            g.name,
            n !== undefined ? `${n} member${n === 1 ? "" : "s"}` : "",
            g.description,
          );
        },
      }),
  }),
  command({
    ...showing("group", 2),
    operations: ["getGroup"],
    run: async (a, ctx) => {
      const g = await ctx.api.getGroup(a.id);
      const n = Number(memberCount(g));
      const created = pick(g, "created_at", "createdAt");
      // One card: its name, what it is for, how many, and what people do next.
      const pairs: Array<[string, string]> = [];
      if (typeof g.description === "string" && g.description.trim())
        pairs.push(["Description", esc(show(g.description, 300))]);
      if (Number.isFinite(n)) pairs.push(["Members", count(n, "contact")]);
      return cardReply({
        title: show(nameOf(g, `Group ${a.id}`), 140),
        pairs,
        footer: `Group ${a.id}${typeof created === "string" ? ` · created ${slackDate(created)}` : ""}`,
        buttons: [
          { text: "Members", line: `contacts group=${a.id}`, style: "primary" },
          { text: "Edit", line: `group edit ${a.id}` },
          { text: "Delete…", line: `group delete ${a.id}`, style: "danger" },
        ],
      });
    },
  }),
  command({
    words: ["group", "add"],
    positionals: [{ name: "name", rest: "text" }],
    options: { description: "what the group is for" },
    schema: z.object({ name: requiredText("the group's name"), description: z.string().optional() }),
    access: "write",
    ...about("Create a group", 'group add Newsletter readers description="Signed up on the site"'),
    operations: ["createGroup"],
    run: async (a, ctx) => {
      const g = await ctx.api.createGroup({ name: a.name, description: a.description });
      return namedWrite(ctx, "group", g.id, g, "created", g, FIRST);
    },
  }),
  command({
    ...onRecord(["group", "edit"], "group", "write"),
    options: { name: "new name", description: "new description" },
    schema: z
      .object({
        id: idArg,
        name: z.string().trim().min(1, { error: "must not be empty" }).optional(),
        description: z.string().optional(),
      })
      .refine((a) => a.name !== undefined || a.description !== undefined, {
        error: "give at least one of name=, description=",
      }),
    ...about("Change a group", 'group edit 2 name="Newsletter (EU)"'),
    operations: ["updateGroup"],
    run: async (a, ctx) => {
      const g = await ctx.api.updateGroup(a.id, { name: a.name, description: a.description });
      return namedWrite(ctx, "group", a.id, g, "changed", g, FIRST);
    },
  }),
  command(
    deleteCommand({
      noun: "group",
      ...about("Delete a group (asks to confirm; its contacts stay)", "group delete 3"),
      api: "Group",
      first: FIRST,
    }),
  ),
  command({
    ...members("add"),
    ...about("Add contacts to a group", "group 2 add 12 13 14"),
    operations: ["addGroupContacts", "getGroup", "getContact"],
    run: (a, ctx) => changeMembers(ctx, a, "add"),
  }),
  command({
    ...members("remove"),
    ...about("Remove contacts from a group (asks to confirm)", "group 2 remove 12"),
    operations: ["removeGroupContacts", "getGroup", "getContact"],
    preview: async (a, ctx) => {
      const g = await ctx.api.getGroup(a.id);
      const title = `Remove ${count(a.contacts.length, "contact")} from group #${a.id}${quoted(g)}?`;
      return {
        text: title,
        blocks: [
          header(title),
          section(
            `Contacts: ${a.contacts.map((c) => `#${esc(c)}`).join(", ")} (the contacts themselves are kept)`,
          ),
        ],
        confirm: { text: "Remove from group", style: "danger" },
      };
    },
    run: (a, ctx) => changeMembers(ctx, a, "remove"),
  }),
];

/** What an add or a remove says: "Added … to", and of the contacts it did not change. */
const MEMBER_WORDS = {
  add: { verb: "Added", prep: "to", others: { one: "was already a member", many: "were already members" } },
  remove: { verb: "Removed", prep: "from", others: { one: "was not a member", many: "were not members" } },
} as const;

/** Adds or removes the contacts, then says so by their names. */
async function changeMembers(
  ctx: CommandContext,
  a: { id: number; contacts: number[] },
  how: "add" | "remove",
) {
  // Read first: the audit names the group (not "group #2"), and the answer too without a second read.
  const group = await groupName(ctx, a.id);
  const changed =
    how === "add"
      ? (await ctx.api.addGroupContacts(a.id, a.contacts)).added
      : (await ctx.api.removeGroupContacts(a.id, a.contacts)).removed;
  const w = MEMBER_WORDS[how];
  return memberReply(ctx, w.verb, w.prep, w.others, a, changed, group);
}

/** A group's name before a write to it; none when it cannot be read (the write then says what is wrong). */
const groupName = (ctx: CommandContext, id: number): Promise<string | undefined> =>
  ctx.api
    .getGroup(id)
    .then((g) => nameOf(g))
    .catch(() => undefined);

/** Contacts named in an add or remove answer; past this many, "and N others". */
const NAMED_MEMBERS = 10;

/** `Testy User, Ana Lopez and #14`: names where they could be read, the number where not. */
function peopleList(ids: number[], names: Record<string, string | undefined>): string {
  const shown = ids.slice(0, NAMED_MEMBERS).map((id) => (names[id] ? esc(names[id]) : `#${id}`));
  const more = ids.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${count(more, "other")}`;
  return shown.length > 1
    ? `${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`
    : shown.join("");
}

/**
 * An add or remove told by names: "Added Testy User and Ana Lopez to *Hot
 * leads*", the numbers in a quiet line. A name is a nicety: one not read
 * leaves the number.
 */
async function memberReply(
  ctx: CommandContext,
  verb: "Added" | "Removed",
  prep: "to" | "from",
  others: { one: string; many: string },
  a: { id: number; contacts: number[] },
  changed: unknown,
  /** The group's name, read before the write. */
  known?: string,
) {
  const names = await relatedNames({
    group: async () => known ?? ctx.api.getGroup(a.id).then((g) => nameOf(g)),
    ...Object.fromEntries(
      a.contacts
        .slice(0, NAMED_MEMBERS)
        .map((c) => [String(c), () => ctx.api.getContact(c).then((r) => contactName(r))]),
    ),
  });
  const group = names.group ? `*${esc(names.group)}*` : `group #${a.id}`;
  const reply = announce(
    ctx,
    memberChange(verb, prep, others, a, changed, group, peopleList(a.contacts, names)),
  );
  const ids = `Group #${a.id} · ${a.contacts.length === 1 ? "contact" : "contacts"} ${a.contacts.map((c) => `#${c}`).join(", ")}`;
  reply.blocks.push(context(ids.length > 2900 ? `${ids.slice(0, 2900)}…` : ids));
  reply.text = `${reply.text} (${ids.length > 300 ? `Group #${a.id}` : ids})`;
  return reply;
}

/**
 * What an add or remove changed, by the API's own count when it gives one
 * (`added` / `removed`): asking to remove a contact that is not a member
 * removes nothing, and says so.
 */
function memberChange(
  verb: "Added" | "Removed",
  prep: "to" | "from",
  others: { one: string; many: string },
  a: { id: number; contacts: number[] },
  changed: unknown,
  group: string,
  people: string,
): string {
  const asked = a.contacts.length;
  const n = typeof changed === "number" && Number.isInteger(changed) && changed >= 0 ? changed : undefined;
  if (n === undefined || n === asked) return `${verb} ${people} ${prep} ${group}`;
  if (n === 0) return `Nothing changed in ${group}: ${people} ${asked === 1 ? others.one : others.many}`;
  const left = asked - n;
  const rest =
    left > 0 ? ` (the other ${count(left, "contact")} ${left === 1 ? others.one : others.many})` : "";
  return `${verb} ${count(n, "contact")} ${prep} ${group}${rest}: ${people}`;
}
