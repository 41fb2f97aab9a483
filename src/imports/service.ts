// The import of one file, for any front end: read the organization's contact
// fields, preview the file (headers mapped, rows checked as the import will
// check them), then run it: the normalized CSV written to a temporary file
// (progress reported through a callback), then sent to POST /contacts/import
// from that file, so that a 429 (which imported nothing) is waited out and
// the request sent again, once; and an outcome with the counts and the error
// report. It returns data; the front ends (the
// Slack thread, the shell's answer) render it. Pending imports of uploads,
// claimed once, are in pending.ts.
import { createReadStream, createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { isApiError, NetworkError } from "../api/errors.ts";
import type { ApiRecord, MessagingApi } from "../api/types.ts";
import { metrics } from "../platform/metrics.ts";
import { nameColumns } from "./contact.ts";
import { type ErrorLine, errorsCsv } from "./error-report.ts";
import { ImportOutcomeUnknown } from "./errors.ts";
import type { ColumnMapping, FieldDefinition } from "./headers.ts";
import { normalizedCsv, normalizedFileName } from "./normalize.ts";
import { type ImportPreview, previewImport } from "./preview.ts";
import { openRows } from "./rows.ts";
import type { ImportSource } from "./source.ts";
import { uploadTempPath } from "./temp.ts";

export interface ImportServiceOptions {
  /** For numbers without a country code (the workspace's country); none: such numbers are refused. */
  defaultCountry?: string;
  /** How many failing rows the error report lists at most; the others are counted. Default 50,000. */
  maxErrorLines?: number;
  /** The longest 429 wait sat out before the one replay of the import; longer: the import fails. Default 5 min. */
  maxRateLimitWaitMs?: number;
  /** IMPORT_TIMEOUT_MS: how long the import request may take; unset: sized for the file (importTimeoutMs). */
  timeoutMs?: number;
}

export interface ImportJob {
  /** The file, read from its start again (a path, bytes, or a function that opens a fresh stream). */
  source: ImportSource;
  /** The name the user knows it by; the forwarded file is named after it, as CSV. */
  fileName: string;
  mapping: ColumnMapping;
  fields: readonly FieldDefinition[];
  /** The rows the preview counted: the `total` of the progress reports. */
  total: number;
  groupId?: number;
  /** The name of a group to create first; the contacts are added to it. */
  newGroup?: string;
  updateExisting: boolean;
}

export interface ImportProgress {
  /** Rows of the file read so far. */
  done: number;
  total: number;
}

export interface ImportOutcome {
  fileName: string;
  /** Rows of the file read (blank rows are not counted). */
  rows: number;
  created: number;
  updated: number;
  /** Rows not imported: refused by the checks of the preview, or by the API. */
  failed: number;
  /**
   * Rows left alone on purpose: `duplicates` (a phone an earlier row of the
   * file has) plus `existing` (contacts that exist, when not updating: what
   * the API neither created, updated nor refused). created + updated +
   * skipped + failed = rows.
   */
  skipped: number;
  duplicates: number;
  existing: number;
  /** The rows skipped as repeats, each with why (at most `SHOWN_SKIPPED`); the API names no existing contact's row. */
  skippedRows: ErrorLine[];
  /** The group the contacts were added to. */
  groupId?: number;
  /** Set when the import created that group. */
  newGroup?: { id: number; name: string };
  /** The failing rows, numbered as in the user's file (at most `maxErrorLines`). */
  failures: ErrorLine[];
  /** Failing rows beyond those listed. */
  unlisted: number;
  /** The errors CSV (row, the row's name columns, phone, reason) to hand back; absent when no row failed. */
  errorReport?: { fileName: string; content: string };
}

const MAX_ERROR_LINES = 50_000;
/** The skipped rows an outcome names; the others are counted. */
export const SHOWN_SKIPPED = 10;
/** The longest an import request may take, whatever its size or setting. */
export const MAX_IMPORT_TIMEOUT_MS = 10 * 60_000;

/**
 * How long the import request of a file of `rows` rows may take: the setting
 * when given, else 15 s plus 1 s per 1,000 rows; at most 10 minutes. The API
 * reads the whole file before it answers, so a big file needs longer than
 * the 15 s a quick call gets.
 */
export function importTimeoutMs(rows: number, setting?: number): number {
  const sized = setting ?? 15_000 + Math.ceil(Math.max(0, rows) / 1000) * 1000;
  return Math.min(sized, MAX_IMPORT_TIMEOUT_MS);
}
const MAX_RATE_LIMIT_WAIT_MS = 5 * 60_000;

/** A 429: the API refused the request, so nothing of it was imported. */
const isRateLimited = (err: unknown): err is { retryAfterMs: number } =>
  isApiError(err) && err.kind === "rate_limited";

/** `12 rows read: 8 created, 1 updated, 2 skipped (1 repeated in the file, 1 already a contact), 1 failed`. */
export function outcomeCounts(o: ImportOutcome): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const why = [
    o.duplicates ? `${n(o.duplicates)} repeated in the file` : "",
    o.existing ? `${n(o.existing)} already ${o.existing === 1 ? "a contact" : "contacts"}, not updated` : "",
  ].filter(Boolean);
  return `${n(o.rows)} row${o.rows === 1 ? "" : "s"} read: ${n(o.created)} created, ${n(o.updated)} updated, ${n(o.skipped)} skipped${
    why.length ? ` (${why.join(", ")})` : ""
  }, ${n(o.failed)} failed`;
}

/**
 * The rows an import skipped, one line each (row, phone, why; at most
 * `SHOWN_SKIPPED`, then how many more), and the contacts that exist counted
 * with why: the API answers their number, not their rows. Plain text.
 */
export function skippedLines(o: ImportOutcome): string[] {
  // "same phone as row 2": the rule (only a phone's first row is imported) is said once, by the counts.
  const why = (reason?: string) =>
    reason?.replace(/^phone \S+ is already on row (\d+)\b.*$/, "same phone as row $1") ??
    "repeated in the file";
  const lines = o.skippedRows.map(
    (r) => `row ${r.row ?? "?"}${r.phone ? ` (${r.phone})` : ""}: ${why(r.reason)}`,
  );
  const more = o.duplicates - lines.length;
  if (more > 0) lines.push(`… and ${more.toLocaleString("en-US")} more repeated in the file`);
  if (o.existing)
    lines.push(
      `${o.existing.toLocaleString("en-US")} ${o.existing === 1 ? "row is a contact" : "rows are contacts"} already, not updated (the messaging API does not say which rows)`,
    );
  return lines;
}

/** The organization's contact fields, as the mapping and the checks of values take them. */
export async function importFields(api: MessagingApi): Promise<FieldDefinition[]> {
  const page = await api.listContactFields();
  return page.items
    .filter((f) => typeof f.key === "string" && f.key)
    .sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0))
    .map((f) => ({ key: f.key as string, label: f.label, type: f.type }));
}

/**
 * Puts each line's name cells, and its phone as typed, from the file's row of
 * its number (the lines the API refused know only the row); stops reading once
 * every row is found.
 */
async function fillFromFile(
  source: ImportSource,
  lines: ErrorLine[],
  nameColumns: number[],
  phoneColumns: number[],
): Promise<void> {
  const byRow = new Map<number, ErrorLine[]>();
  for (const l of lines) if (typeof l.row === "number") byRow.set(l.row, [...(byRow.get(l.row) ?? []), l]);
  if (byRow.size === 0) return;
  const opened = await openRows(source);
  try {
    for await (const batch of opened.batches) {
      for (const { row, cells } of batch) {
        const found = byRow.get(row);
        if (!found) continue;
        const phone = phoneColumns.map((c) => cells[c] ?? "").find((p) => p.trim() !== "") ?? "";
        for (const l of found) {
          l.names = nameColumns.map((c) => cells[c] ?? "");
          l.phone = phone;
        }
        byRow.delete(row);
        if (byRow.size === 0) return;
      }
    }
  } finally {
    await opened.batches.return(undefined);
  }
}

export class ImportService {
  readonly defaultCountry?: string;
  private readonly maxErrorLines: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly timeoutMs: number | undefined;

  constructor(opts: ImportServiceOptions) {
    this.defaultCountry = opts.defaultCountry;
    this.timeoutMs = opts.timeoutMs;
    this.maxErrorLines = opts.maxErrorLines ?? MAX_ERROR_LINES;
    this.maxRateLimitWaitMs = opts.maxRateLimitWaitMs ?? MAX_RATE_LIMIT_WAIT_MS;
  }

  /**
   * Reads the file as the import will: the suggested mapping of its headers
   * (or the user's `mapping`, see resolveMapping), counts, samples and the
   * first failing rows. Throws ImportFileError for a file that cannot be read
   * and MappingError for a mapping that cannot be used.
   */
  preview(
    source: ImportSource,
    fields: readonly FieldDefinition[],
    mapping?: unknown,
  ): Promise<ImportPreview> {
    return previewImport(source, { fields, defaultCountry: this.defaultCountry, mapping });
  }

  /** Imports the file's valid rows in one POST /contacts/import (and creates the new group first). */
  async run(
    job: ImportJob,
    api: MessagingApi,
    onProgress?: (progress: ImportProgress) => void,
  ): Promise<ImportOutcome> {
    const failures: ErrorLine[] = [];
    let unlisted = 0;
    const fail = (line: ErrorLine) => {
      if (failures.length < this.maxErrorLines) failures.push(line);
      else unlisted++;
    };
    let duplicates = 0;
    const skippedRows: ErrorLine[] = [];
    let groupId = job.groupId;
    let created: ApiRecord | undefined;
    if (job.newGroup) {
      created = await api.createGroup({ name: job.newGroup, description: `Imported from ${job.fileName}` });
      groupId = created.id;
    }
    const csv = normalizedCsv(job.source, job.mapping, {
      fields: job.fields,
      defaultCountry: this.defaultCountry,
      // A repeated phone is skipped, not failed: the earlier row carries the contact.
      onFailure: (f) => {
        if (f.code === "duplicate") {
          duplicates++;
          if (skippedRows.length < SHOWN_SKIPPED)
            skippedRows.push({ row: f.row, phone: f.phone, reason: f.reason });
        } else fail({ row: f.row, phone: f.phone, names: f.names, reason: f.reason });
      },
      onProgress: onProgress && ((p) => onProgress({ done: p.rows, total: job.total })),
    });
    // On disk first: a request the API refused with a 429 is sent again from this file.
    const path = await uploadTempPath("normalized.csv");
    let result: Awaited<ReturnType<MessagingApi["importContacts"]>>;
    let summary: Awaited<typeof csv.done>;
    try {
      await pipeline(csv.body, createWriteStream(path));
      summary = await csv.done;
      const post = () =>
        api.importContacts(
          {
            filename: normalizedFileName(job.fileName),
            contentType: "text/csv",
            body: createReadStream(path),
          },
          { groupId, updateExisting: job.updateExisting },
          // Long work with its own progress, not a quick answer: no person's deadline (docs/api.md),
          // and time sized for the file. No answer in time: the outcome is unknown (ImportOutcomeUnknown).
          { lane: "background", timeoutMs: importTimeoutMs(summary.rows, this.timeoutMs) },
        );
      const unknown = (err: unknown) =>
        err instanceof NetworkError && err.mayHaveReachedServer
          ? new ImportOutcomeUnknown(
              {
                fileName: job.fileName,
                rows: summary.rows - summary.failed,
                timeoutMs: err.timedOut ? importTimeoutMs(summary.rows, this.timeoutMs) : undefined,
                groupId,
                newGroup:
                  created?.id !== undefined ? { id: created.id, name: job.newGroup as string } : undefined,
              },
              err,
            )
          : err;
      try {
        result = await post();
      } catch (err) {
        // A 429 imported nothing: wait as asked, then send the same file once more.
        if (!isRateLimited(err) || err.retryAfterMs > this.maxRateLimitWaitMs) throw unknown(err);
        await new Promise((resolve) => setTimeout(resolve, err.retryAfterMs));
        result = await post().catch((e: unknown) => {
          throw unknown(e);
        });
      }
    } finally {
      csv.body.destroy();
      await rm(path, { force: true });
    }
    // The API numbers the rows of the normalized CSV; the user knows those of the file.
    const refused: ErrorLine[] = [];
    for (const e of result.errors) {
      const row = typeof e.row === "number" ? (csv.sourceRowOf(e.row) ?? e.row) : undefined;
      const line: ErrorLine = {
        row,
        phone: typeof e.phone === "string" ? e.phone : undefined,
        message: e.message,
      };
      refused.push(line);
      fail(line);
    }
    // Their name and phone cells as typed: the file read again, only when the API refused rows (rare).
    const names = nameColumns(job.mapping);
    if (refused.length > 0) await fillFromFile(job.source, refused, names, job.mapping.phone);
    const failed = summary.failed - duplicates + result.errors.length;
    const existing = Math.max(0, summary.rows - result.created - result.updated - failed - duplicates);
    metrics.imports.inc({ outcome: "done" });
    for (const [outcome, n] of [
      ["created", result.created],
      ["updated", result.updated],
      ["skipped", duplicates + existing],
      ["failed", failed],
    ] as const)
      metrics.importRows.inc({ outcome }, n);
    return {
      fileName: job.fileName,
      rows: summary.rows,
      created: result.created,
      updated: result.updated,
      failed,
      skipped: duplicates + existing,
      duplicates,
      existing,
      skippedRows,
      groupId,
      newGroup: created?.id !== undefined ? { id: created.id, name: job.newGroup as string } : undefined,
      failures,
      unlisted,
      errorReport: failures.length
        ? {
            fileName: `${normalizedFileName(job.fileName).replace(/\.csv$/, "")}-errors.csv`,
            content: errorsCsv(
              failures,
              names.map((c) => summary.headers[c] ?? ""),
            ),
          }
        : undefined,
    };
  }
}
