// POST /contacts/import: a multipart form with one CSV or xlsx file and the
// fields `updateExisting` and `groupId`. The file is streamed to a temporary
// file (so the form fields may come before or after it), then read row by row
// (csv-parse, exceljs streaming reader) and written in batches, one statement
// per batch, inside one transaction: a file that cannot be read changes nothing.
import { closeSync, createReadStream, createWriteStream, openSync, readSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { parse } from "csv-parse";
import type ExcelJS from "exceljs";
import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import {
  createContactSchema,
  describeIssues,
  formatProblems,
  importContactsFieldsSchema,
} from "../api/schemas.ts";
import type { ContactFieldRow, ImportContact } from "../store/sandbox/rows.ts";
import type { OrgStore } from "../store/sandbox/store.ts";
import type { SandboxContext } from "./context.ts";
import { checkCustomFields } from "./custom-fields.ts";
import { badRequest, HttpError, parseWith } from "./http.ts";

const BATCH = 2000;
// A bulk import changes the table enough that search plans need fresh statistics.
const ANALYZE_AFTER = 1000;
const CONTACT_COLUMNS = ["phone", "first_name", "last_name", "email"] as const;
// The row's own members, checked by the shared create schema (custom fields apart).
const rowSchema = createContactSchema.omit({ custom_fields: true });

export interface ImportOutcome {
  created: number;
  updated: number;
  skipped: number;
  errors: Array<{ row: number; message: string }>;
}

interface SheetRow {
  /** Row number as a spreadsheet shows it: the header is row 1. */
  row: number;
  cells: string[];
}

/** Imports into `store`'s organization (the request key's). */
export async function importContacts(
  ctx: SandboxContext,
  store: OrgStore,
  req: FastifyRequest,
): Promise<ImportOutcome> {
  if (!req.isMultipart()) {
    throw badRequest(["(body) must be multipart/form-data with a file and the field updateExisting"]);
  }
  const dir = await mkdtemp(join(tmpdir(), "sandbox-import-"));
  try {
    const fields: Record<string, string> = {};
    let file: { path: string; filename: string; mimetype: string } | undefined;
    for await (const part of req.parts()) {
      if (part.type === "file") {
        const path = join(dir, "upload");
        await pipeline(part.file, createWriteStream(path));
        if (part.file.truncated) throw new HttpError(413, `file must be at most ${ctx.importMaxBytes} bytes`);
        file = { path, filename: part.filename ?? "", mimetype: part.mimetype ?? "" };
      } else {
        fields[part.fieldname] = String(part.value);
      }
    }
    const form = parseWith(importContactsFieldsSchema, fields);
    if (!file) throw badRequest(["file is required: a CSV or xlsx file of contacts"]);
    if (form.groupId !== undefined && !(await store.groups.get(form.groupId))) {
      throw badRequest([`groupId ${form.groupId} does not name a group`]);
    }
    const kind = kindOf(file);
    const rows = kind === "csv" ? csvRows(file.path) : xlsxRows(file.path);
    const outcome = await writeRows(store, rows, {
      updateExisting: form.updateExisting,
      groupId: form.groupId,
    });
    if (outcome.created + outcome.updated >= ANALYZE_AFTER) await store.contacts.analyze();
    return outcome;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function kindOf(file: { path: string; filename: string; mimetype: string }): "csv" | "xlsx" {
  const name = file.filename.toLowerCase();
  if (name.endsWith(".xlsx")) return "xlsx";
  if (name.endsWith(".csv") || name.endsWith(".txt")) return "csv";
  if (file.mimetype.includes("spreadsheetml")) return "xlsx";
  if (file.mimetype.includes("csv") || file.mimetype.startsWith("text/")) return "csv";
  // No telling name or type: an xlsx is a zip, which starts with "PK".
  const head = peek(file.path, 2);
  if (head === "PK") return "xlsx";
  if (head.length === 0) throw badRequest(["file is empty"]);
  return "csv";
}

function peek(path: string, bytes: number): string {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

async function* csvRows(path: string): AsyncGenerator<SheetRow> {
  // Spreadsheets exported in some locales separate with ";": judge by the header line.
  const firstLine = peek(path, 64 * 1024).split(/\r?\n/, 1)[0] ?? "";
  const delimiter = [",", ";", "\t"].reduce((best, d) =>
    firstLine.split(d).length > firstLine.split(best).length ? d : best,
  );
  const parser = createReadStream(path).pipe(
    parse({ bom: true, delimiter, relax_column_count: true, skip_empty_lines: true, info: true }),
  );
  try {
    for await (const rec of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { row: rec.info.lines, cells: rec.record };
    }
  } catch (err) {
    throw badRequest([`file could not be read as CSV: ${(err as Error).message}`]);
  }
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === "object") {
    const o = v as { richText?: Array<{ text: string }>; text?: unknown; result?: unknown; error?: string };
    if (o.richText) return o.richText.map((t) => t.text).join("");
    if (o.text !== undefined) return cellText(o.text);
    if (o.result !== undefined) return cellText(o.result);
    return "";
  }
  return String(v);
}

async function* xlsxRows(path: string): AsyncGenerator<SheetRow> {
  // Loaded on the first xlsx import, not at start: exceljs and its packages take longer to load than the rest of the sandbox.
  const { default: Excel } = await import("exceljs");
  let reader: ExcelJS.stream.xlsx.WorkbookReader;
  try {
    reader = new Excel.stream.xlsx.WorkbookReader(path, {
      worksheets: "emit",
      sharedStrings: "cache",
      styles: "cache",
      hyperlinks: "ignore",
    });
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const values = row.values as unknown[];
        const cells: string[] = [];
        // values is 1-based and sparse; numbers in the phone column keep their digits.
        for (let i = 1; i < values.length; i++) cells.push(cellText(values[i]));
        yield { row: row.number, cells };
      }
      break; // Only the first worksheet holds contacts.
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw badRequest([`file could not be read as xlsx: ${(err as Error).message}`]);
  }
}

async function writeRows(
  store: OrgStore,
  rows: AsyncGenerator<SheetRow>,
  opts: { updateExisting: boolean; groupId?: number },
): Promise<ImportOutcome> {
  const fields = await store.fields.list();
  const fieldKeys = new Set(fields.map((f) => f.key));
  const outcome: ImportOutcome = { created: 0, updated: 0, skipped: 0, errors: [] };

  return store.db.transaction(async (tx) => {
    let header: string[] | undefined;
    let batch = new Map<string, ImportContact>();
    let duplicates = 0;

    const flush = async () => {
      const r = await store.contacts.importBatch(tx, [...batch.values()], opts);
      outcome.created += r.created;
      outcome.updated += r.updated;
      const written = r.created + r.updated;
      // Duplicates inside the file either updated the earlier row or were skipped.
      if (opts.updateExisting) outcome.updated += duplicates;
      else outcome.skipped += batch.size - written + duplicates;
      batch = new Map();
      duplicates = 0;
    };

    for await (const { row, cells } of rows) {
      if (cells.every((c) => c.trim() === "")) continue;
      if (!header) {
        header = checkHeader(cells, fieldKeys);
        continue;
      }
      const parsed = readRow(header, cells, fields);
      if ("message" in parsed) {
        outcome.errors.push({ row, message: parsed.message });
        continue;
      }
      const earlier = batch.get(parsed.phone);
      if (earlier) {
        duplicates += 1;
        if (opts.updateExisting) {
          batch.set(parsed.phone, {
            ...earlier,
            ...parsed,
            custom_fields: { ...earlier.custom_fields, ...parsed.custom_fields },
          });
        }
      } else {
        batch.set(parsed.phone, parsed);
      }
      if (batch.size >= BATCH) await flush();
    }
    if (!header)
      throw badRequest(["file has no header row: the first row must name the columns, phone first"]);
    await flush();
    return outcome;
  });
}

function checkHeader(cells: string[], fieldKeys: Set<string>): string[] {
  const header = cells.map((c) => c.trim().toLowerCase());
  const problems: string[] = [];
  const known = new Set<string>([...CONTACT_COLUMNS, ...fieldKeys]);
  const seen = new Set<string>();
  for (const [i, name] of header.entries()) {
    if (name === "") continue;
    if (!known.has(name)) {
      problems.push(
        `file column ${i + 1} "${name}" is neither a contact member (${CONTACT_COLUMNS.join(", ")}) nor a custom field key`,
      );
    }
    if (seen.has(name)) problems.push(`file column "${name}" appears twice`);
    seen.add(name);
  }
  if (!seen.has("phone")) problems.push("file must have a phone column");
  if (problems.length) throw badRequest(problems);
  return header;
}

function readRow(
  header: string[],
  cells: string[],
  fields: ContactFieldRow[],
): ImportContact | { message: string } {
  const own: Record<string, string> = {};
  const custom: Record<string, string> = {};
  for (const [i, name] of header.entries()) {
    const value = (cells[i] ?? "").trim();
    if (name === "" || value === "") continue;
    if ((CONTACT_COLUMNS as readonly string[]).includes(name)) own[name] = value;
    else custom[name] = value;
  }
  // A phone typed as a number in a spreadsheet loses its "+": digits alone are read as international.
  if (own.phone && /^\d{8,15}$/.test(own.phone)) own.phone = `+${own.phone}`;
  const problems: string[] = [];
  const r = rowSchema.safeParse(own);
  if (!r.success) problems.push(formatProblems(describeIssues(r.error, own)));
  const cf = checkCustomFields(custom, fields, "");
  problems.push(...cf.problems);
  if (!r.success || problems.length) return { message: problems.join("; ") };
  const c: z.output<typeof rowSchema> = r.data;
  return { ...c, custom_fields: cf.values };
}
