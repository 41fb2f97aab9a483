// `/sb import <path>` in the shell: the local file goes through the imports
// service as an upload does (headers mapped, phones normalized, every row
// checked), then its valid rows are imported and the outcome answered: the
// counts, the columns used, and the first failing rows with their row numbers.
// There is no pending import and no question: the command itself is the decision.
import { stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { esc, num, section } from "../../blocks/blocks.ts";
import {
  type ErrorLine,
  ImportFileError,
  type ImportPreview,
  ImportService,
  importFields,
  MappingError,
  outcomeCounts,
  type PreviewSummary,
  summarizePreview,
} from "../../imports/index.ts";
import { type CommandContext, UserError } from "../registry.ts";
import { show } from "../render.ts";
import type { Reply } from "../types.ts";
import { announce } from "./common.ts";

/** Failing rows listed in the answer; the counts cover them all. */
const SHOWN_FAILURES = 10;

export interface ImportFileArgs {
  path?: string;
  group?: number;
  update: boolean;
}

export async function importLocalFile(a: ImportFileArgs, ctx: CommandContext): Promise<Reply> {
  if (!a.path) throw new UserError("*path* is required: the CSV or xlsx file to import");
  const path = a.path;
  const ext = extname(path).toLowerCase();
  if (ext !== ".csv" && ext !== ".xlsx")
    throw new UserError(`*path* must be a .csv or .xlsx file, not "${esc(path)}"`);
  try {
    if (!(await stat(path)).isFile()) throw new UserError(`*path* is not a file (${esc(path)})`);
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" || code === "ENOTDIR"
        ? "there is no such file"
        : code === "EACCES" || code === "EPERM"
          ? "Switchboard may not read it (file permissions)"
          : "it cannot be read";
    throw new UserError(`*path* ${why}: ${esc(path)}`);
  }
  const name = basename(path);
  // DEFAULT_COUNTRY always reaches the core from the config; "US" is the config's own default.
  const service = new ImportService({ defaultCountry: ctx.defaultCountry ?? "US" });
  const fields = await importFields(ctx.api);
  let preview: ImportPreview;
  try {
    preview = await service.preview(path, fields);
  } catch (err) {
    if (err instanceof ImportFileError || err instanceof MappingError)
      throw new UserError(`${esc(name)}: ${esc(err.message)}. Nothing was imported.`);
    throw err;
  }
  if (preview.problems.length)
    throw new UserError(`${esc(name)}: ${esc(preview.problems.join("; "))}. Nothing was imported.`);
  const summary = summarizePreview(preview);
  const columns = columnsLine(summary);
  if (preview.valid === 0) {
    const text = `Nothing imported from ${esc(name)}: none of its ${num(preview.rows)} rows can be imported.`;
    const failing = failureLines(summary.failures, preview.failed);
    return {
      visibility: "ephemeral",
      text,
      blocks: [section(text), section(columns), ...(failing ? [section(failing)] : [])],
    };
  }
  const o = await service.run(
    {
      source: path,
      fileName: name,
      mapping: preview.mapping,
      fields,
      total: preview.rows,
      groupId: a.group,
      updateExisting: a.update,
    },
    ctx.api,
  );
  const reply = announce(
    ctx,
    `Import of ${esc(name)}: ${esc(outcomeCounts(o))}${o.groupId ? `; added to group #${o.groupId}` : ""}.`,
  );
  const failing = failureLines(o.failures, o.failed);
  reply.blocks.push(section(columns), ...(failing ? [section(failing)] : []));
  if (failing) reply.text += `\n${failing}`;
  return reply;
}

/** `phone ← “Mobile” (A), first_name ← “First Name” (B); ignored: “Notes” (C)`. */
function columnsLine(s: PreviewSummary): string {
  const named = (c: PreviewSummary["columns"][number]) => `“${esc(c.header)}” (${c.letter})`;
  const used = s.columns.filter((c) => c.target).map((c) => `${c.target} ← ${named(c)}`);
  const ignored = s.columns.filter((c) => !c.target).map(named);
  return `Columns: ${used.join(", ")}${ignored.length ? `; ignored: ${ignored.join(", ")}` : ""}`;
}

function failureLines(failures: ErrorLine[], failed: number): string {
  const lines = failures
    .slice(0, SHOWN_FAILURES)
    .map(
      (f) =>
        `• row ${f.row ?? "?"}${f.phone ? ` (${esc(show(f.phone, 30))})` : ""}: ${esc(show(f.reason ?? f.message, 200))}`,
    );
  const more = failed - lines.length;
  return lines.length ? `${lines.join("\n")}${more > 0 ? `\n… and ${num(more)} more` : ""}` : "";
}
