// `/sb import <path>` in the shell: the local file goes through the imports
// service as an upload does (headers mapped, phones normalized, every row
// checked). The preview (counts, columns, sample, the rows that will fail)
// asks y/N, as the upload's thread asks with its Import button; confirmed, the
// valid rows are imported and the outcome answered: the counts, the columns
// used, the first failing rows, and the error report, written next to the file.
import { stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join } from "node:path";
import { isApiError } from "../../api/errors.ts";
import { context, count, esc, fieldsSection, header, num, section } from "../../blocks/blocks.ts";
import {
  countryNeeded,
  type ErrorLine,
  ImportFileError,
  type ImportOutcome,
  type ImportOutcomeUnknown,
  type ImportPreview,
  ImportService,
  importFields,
  isImportOutcomeUnknown,
  MappingError,
  outcomeCounts,
  type PreviewSummary,
  repeatsLine,
  skippedLines,
  summarizePreview,
  targetLabel,
} from "../../imports/index.ts";
import { type CommandContext, type Preview, UserError } from "../registry.ts";
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

interface ReadFile {
  path: string;
  name: string;
  service: ImportService;
  fields: Awaited<ReturnType<typeof importFields>>;
  preview: ImportPreview;
  summary: PreviewSummary;
}

/** Checks the path and reads the file as the import will; what cannot be imported at all is a UserError. */
async function readLocalFile(a: ImportFileArgs, ctx: CommandContext): Promise<ReadFile> {
  if (!a.path) throw new UserError("*path* is required: the CSV or xlsx file to import");
  const path = a.path;
  const ext = extname(path).toLowerCase();
  if (ext !== ".csv" && ext !== ".xlsx")
    throw new UserError(`*path* must be a .csv or .xlsx file, not "${esc(path)}"`);
  try {
    if (!(await stat(path)).isFile()) throw new UserError(`${esc(path)} is not a file`);
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(
      code === "ENOENT" || code === "ENOTDIR"
        ? `No file at ${esc(path)}`
        : code === "EACCES" || code === "EPERM"
          ? `Switchboard may not read ${esc(path)} (file permissions)`
          : `${esc(path)} cannot be read`,
    );
  }
  const name = basename(path);
  // The workspace's country (its setting, else the deployment's); none: numbers without a + code are refused.
  const service = new ImportService({
    defaultCountry: ctx.defaultCountry,
    timeoutMs: ctx.importTimeoutMs,
  });
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
  return { path, name, service, fields, preview, summary: summarizePreview(preview) };
}

/** The name of the error report, beside the file: `contacts-errors.csv`. */
const errorReportName = (name: string) => `${name.replace(/\.[^.]*$/, "") || "contacts"}-errors.csv`;

/**
 * The question before a shell import: what the file holds, what will be
 * imported and what will fail. Undefined (no question) outside the shell,
 * where `import` opens the upload form, and when no row can be imported: the
 * run answers that, with the failing rows.
 */
export async function importFilePreview(
  a: ImportFileArgs,
  ctx: CommandContext,
): Promise<Preview | undefined> {
  if (ctx.actor.via !== "shell" || !a.path) return undefined;
  const { name, summary: s } = await readLocalFile(a, ctx);
  if (s.valid === 0) return undefined;
  const group = a.group === undefined ? undefined : await groupOf(a.group, ctx);
  const text = `Import ${count(s.valid, "valid row")} from ${esc(name)}?`;
  const blocks = [
    header(`Import ${name}?`),
    ...fieldsSection([
      ["Rows", num(s.rows)],
      // What will be sent, not what will be created: the API skips (or updates) contacts that exist.
      ["Valid rows", num(s.valid)],
      ["Will fail", num(s.failed)],
      ...(s.repeated ? [["Repeated in the file", `${num(s.repeated)} (skipped)`] as [string, string]] : []),
      ["File", esc(s.format)],
    ]),
    section(columnsLine(s)),
    ...(s.warnings ?? []).map((w) => section(`:warning: ${esc(w)}`)),
  ];
  if (s.samples.length) {
    const keys = Object.keys(s.samples[0]?.contact ?? {}).filter((k) => s.samples.some((x) => x.contact[k]));
    const lines = s.samples.map(
      (x) => `${String(x.row).padStart(4)}  ${keys.map((k) => x.contact[k] || "·").join(" · ")}`,
    );
    blocks.push(
      section(
        `*Sample* (row  ${esc(keys.map((k) => targetLabel(k, s.labels)).join(" · "))})\n\`\`\`${esc(lines.join("\n"))}\`\`\``,
      ),
    );
  }
  const failing = failureLines(s.failures, s.failed);
  if (failing) blocks.push(section(`*Rows that will fail*\n${failing}`));
  const country = countryNeeded(s);
  if (country) blocks.push(section(`:globe_with_meridians: ${esc(country)}`));
  const notes = [
    ...(s.repeated ? [repeatsLine(s)] : []),
    existingLine(a.update),
    ...(group
      ? [`Every imported contact is added to group #${group.id} “${esc(show(group.name, 60))}”.`]
      : []),
    ...(s.failed
      ? [`The failing rows will be written to ${esc(errorReportName(name))}, next to the file.`]
      : []),
  ];
  blocks.push(context(notes.join(" ")));
  return { text, blocks, confirm: { text: "Import", style: "primary", dismiss: "Cancel" } };
}

/** What the import does with the valid rows, those of contacts that exist included. */
const existingLine = (update: boolean) =>
  `Valid rows are sent to the import: a new phone becomes a contact; a phone that is already a contact is ${
    update ? "updated, not created twice." : "skipped, not created (`update=yes` updates it)."
  }`;

/** The group the contacts will join: known before asking, so a wrong id is not found after "yes". */
async function groupOf(id: number, ctx: CommandContext) {
  try {
    return await ctx.api.getGroup(id);
  } catch (err) {
    if (isApiError(err) && err.kind === "not_found")
      throw new UserError(`There is no group #${id}: \`/sb groups\` lists them. Nothing was imported.`);
    throw err;
  }
}

export async function importLocalFile(a: ImportFileArgs, ctx: CommandContext): Promise<Reply> {
  const { path, name, service, fields, preview, summary } = await readLocalFile(a, ctx);
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
  let o: ImportOutcome;
  try {
    o = await service.run(
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
  } catch (err) {
    if (isImportOutcomeUnknown(err)) return unknownOutcome(err, summary);
    throw err;
  }
  const reply = announce(
    ctx,
    `Import of ${esc(name)}: ${esc(outcomeCounts(o))}${o.groupId ? `; added to group #${o.groupId}` : ""}.`,
  );
  const failing = failureLines(o.failures, o.failed);
  const skipped = skippedLines(o);
  const skippedText = skipped.length ? `*Skipped*\n${skipped.map((l) => `• ${esc(l)}`).join("\n")}` : "";
  reply.blocks.push(
    section(columns),
    ...(skippedText ? [section(skippedText)] : []),
    ...(failing ? [section(failing)] : []),
  );
  if (skippedText) reply.text += `\n${skippedText}`;
  if (failing) reply.text += `\n${failing}`;
  if (o.errorReport) {
    const where = await writeErrorReport(path, name, o.errorReport.content);
    reply.blocks.push(section(where));
    reply.text += `\n${where}`;
  }
  return reply;
}

/**
 * No answer after the file may have reached the API: not a failure. Says what
 * to check before importing again (which updates or skips what is already in).
 */
function unknownOutcome(u: ImportOutcomeUnknown, s: PreviewSummary): Reply {
  const wait = u.timeoutMs ? ` within ${Math.round(u.timeoutMs / 1000)} s` : "";
  const sample = s.samples.map((x) => x.contact.phone).find((p) => typeof p === "string" && p);
  const group = u.newGroup
    ? `, and whether the group “${esc(u.newGroup.name)}” was created (\`/sb groups\`)`
    : u.groupId
      ? `, and the group's members (\`/sb contacts group=${u.groupId}\`)`
      : "";
  const text =
    `:warning: *Outcome unknown*: the messaging API gave no answer${wait} while importing ${esc(u.fileName)}, ` +
    `so some, all or none of its ${count(u.rows, "contact")} may have been imported.`;
  const check =
    `Check the contacts before importing again: their count (\`/sb contacts\`), a few numbers of the file (\`/sb contacts ${sample ? esc(sample) : "<number>"}\`)${group}. ` +
    "Importing the file again updates or skips the contacts already there; it does not create them twice.";
  return { visibility: "ephemeral", text: `${text}\n${check}`, blocks: [section(text), section(check)] };
}

/**
 * The error report beside the imported file (a report of an earlier import of
 * it is replaced); in the temporary folder when that folder cannot be written.
 */
async function writeErrorReport(path: string, name: string, content: string): Promise<string> {
  const file = errorReportName(name);
  const beside = join(dirname(path), file);
  try {
    await writeFile(beside, content);
    return `Error report: ${esc(beside)}`;
  } catch {
    const elsewhere = join(tmpdir(), file);
    try {
      await writeFile(elsewhere, content);
      return `Error report: ${esc(elsewhere)} (the folder of the file cannot be written).`;
    } catch {
      return "The error report could not be written: neither the folder of the file nor the temporary folder can be written.";
    }
  }
}

/** `phone ← “Mobile” (A), first_name ← “First Name” (B); ignored: “Notes” (C)`. */
function columnsLine(s: PreviewSummary): string {
  const named = (c: PreviewSummary["columns"][number]) => `“${esc(c.header)}” (${c.letter})`;
  const used = s.columns
    .filter((c) => c.target)
    .map((c) => `${esc(targetLabel(c.target!, s.labels))} ← ${named(c)}`);
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
