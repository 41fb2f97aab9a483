import { z } from "zod";
import { colorSchema } from "../../api/schemas.ts";
import { esc, slackDate } from "../../blocks/blocks.ts";
import { idArg, requiredText } from "../args.ts";
import { cardReply, listLine, pageReply, pick, show } from "../render.ts";
import { namedWrite, nameOf } from "./common.ts";
import { about, deleteCommand, inTopic, listing, onRecord, showing } from "./shapes.ts";

const command = inTopic("tags");

const FIRST = ["id", "name", "color", "description"];
const optionalColor = z.preprocess((v) => (v === "" ? undefined : v), colorSchema.optional());

export const TAG_COMMANDS = [
  command({
    ...listing("tags"),
    summary: "List the conversation tags",
    operations: ["listTags"],
    run: async (_a, ctx) => {
      const page = await ctx.api.listTags();
      return pageReply({
        title: "Tags",
        one: "tag",
        plural: "tags",
        page,
        line: (t) => listLine(t.id, t.name, t.color, t.description),
      });
    },
  }),
  command({
    ...showing("tag", 3),
    operations: ["getTag"],
    run: async (a, ctx) => {
      const t = await ctx.api.getTag(a.id);
      const created = pick(t, "created_at", "createdAt");
      const pairs: Array<[string, string]> = [];
      if (typeof t.color === "string") pairs.push(["Colour", esc(t.color)]);
      if (typeof t.description === "string" && t.description.trim())
        pairs.push(["Description", esc(show(t.description, 300))]);
      return cardReply({
        title: show(nameOf(t, `Tag ${a.id}`), 140),
        pairs,
        footer: `Tag ${a.id}${typeof created === "string" ? ` · created ${slackDate(created)}` : ""}`,
        buttons: [
          { text: "Edit", line: `tag edit ${a.id}` },
          { text: "Delete…", line: `tag delete ${a.id}`, style: "danger" },
        ],
      });
    },
  }),
  command({
    words: ["tag", "add"],
    positionals: [{ name: "name" }, { name: "color" }, { name: "description", rest: "text" }],
    schema: z.object({
      name: requiredText("the tag's name"),
      color: colorSchema,
      description: z.string().optional(),
    }),
    access: "write",
    usage: "tag add <name> <#RRGGBB> [description…]",
    ...about("Create a tag (quote a name with spaces)", 'tag add "VIP lead" #1D9BD1 Big accounts'),
    operations: ["createTag"],
    run: async (a, ctx) => {
      const tag = await ctx.api.createTag({ name: a.name, color: a.color, description: a.description });
      return namedWrite(ctx, "tag", tag.id, tag, "created", tag, FIRST);
    },
  }),
  command({
    ...onRecord(["tag", "edit"], "tag", "write"),
    options: { name: "new name", color: "new colour, #RRGGBB", description: "new description" },
    schema: z
      .object({
        id: idArg,
        name: z.string().trim().min(1, { error: "must not be empty" }).optional(),
        color: optionalColor,
        description: z.string().optional(),
      })
      .refine((a) => a.name !== undefined || a.color !== undefined || a.description !== undefined, {
        error: "give at least one of name=, color=, description=",
      }),
    ...about("Change a tag", "tag edit 3 color=#FF8800"),
    operations: ["updateTag"],
    run: async (a, ctx) => {
      const tag = await ctx.api.updateTag(a.id, { name: a.name, color: a.color, description: a.description });
      return namedWrite(ctx, "tag", a.id, tag, "changed", tag, FIRST);
    },
  }),
  command(
    deleteCommand({
      noun: "tag",
      example: "tag delete 3",
      api: "Tag",
      first: FIRST,
    }),
  ),
];
