import { z } from "zod";
import { NotFoundError } from "../../api/errors.ts";
import { FIELD_TYPES, fieldKeySchema, wholeNumber } from "../../api/schemas.ts";
import { choice, idArg, requiredText } from "../args.ts";
import { listLine, pageReply, pick, show } from "../render.ts";
import { namedWrite } from "./common.ts";
import { about, deleteCommand, inTopic, listing, onRecord } from "./shapes.ts";

const command = inTopic("fields");

const FIRST = ["id", "key", "label", "type", "position"];
const position = wholeNumber().optional();

export const FIELD_COMMANDS = [
  command({
    ...listing("fields"),
    summary: "List the custom contact fields",
    operations: ["listContactFields"],
    run: async (_a, ctx) =>
      pageReply({
        title: "Contact fields",
        one: "field",
        plural: "fields",
        page: await ctx.api.listContactFields(),
        line: (f) =>
          listLine(f.id, f.key, f.label, f.type, f.position !== undefined ? `position ${f.position}` : ""),
      }),
  }),
  command({
    words: ["field", "add"],
    positionals: [{ name: "key" }, { name: "label", rest: "text" }],
    options: {
      type: `one of ${FIELD_TYPES.join(", ")} (default text)`,
      position: "sort position (default 0)",
    },
    schema: z.object({
      key: fieldKeySchema,
      label: requiredText("the field's label"),
      type: choice(FIELD_TYPES).optional(),
      position,
    }),
    access: "write",
    ...about(
      "Create a custom contact field (its key cannot change later)",
      "field add shoe_size Shoe size type=number position=5",
    ),
    operations: ["createContactField"],
    run: async (a, ctx) => {
      const f = await ctx.api.createContactField({
        key: a.key,
        label: a.label,
        type: a.type,
        position: a.position,
      });
      return namedWrite(ctx, "field", f.id, show(pick(f, "label", "key") ?? ""), "created", f, FIRST);
    },
  }),
  command({
    ...onRecord(["field", "edit"], "field", "write"),
    options: {
      label: "new label",
      type: `one of ${FIELD_TYPES.join(", ")}`,
      position: "sort position",
      key: "(cannot be changed)",
    },
    schema: z
      .object({
        id: idArg,
        key: z
          .never({
            error: "cannot be changed: a field's key is immutable (delete the field and add a new one)",
          })
          .optional(),
        label: z.string().trim().min(1, { error: "must not be empty" }).optional(),
        type: choice(FIELD_TYPES).optional(),
        position,
      })
      .refine((a) => a.label !== undefined || a.type !== undefined || a.position !== undefined, {
        error: "give at least one of label=, type=, position=",
      }),
    usage: "field edit <id> [label=] [type=] [position=]",
    ...about("Change a custom field's label, type or position", "field edit 4 label=Tier"),
    operations: ["updateContactField"],
    run: async (a, ctx) => {
      const f = await ctx.api.updateContactField(a.id, {
        label: a.label,
        type: a.type,
        position: a.position,
      });
      return namedWrite(ctx, "field", a.id, show(pick(f, "label", "key") ?? ""), "changed", f, FIRST);
    },
  }),
  command(
    deleteCommand({
      noun: "field",
      ...about("Delete a custom field (asks to confirm)", "field delete 4"),
      operations: ["deleteContactField", "listContactFields"],
      read: async (ctx, id) => {
        // There is no GET of one field: find it in the list.
        const page = await ctx.api.listContactFields();
        const f = page.items.find((x) => Number(x.id) === id);
        if (!f) throw new NotFoundError(`field ${id} is not among the contact fields`, { status: 404 });
        return f;
      },
      remove: (ctx, id) => ctx.api.deleteContactField(id),
      name: (f) => show(pick(f, "label", "key") ?? ""),
      first: FIRST,
    }),
  ),
];
