// What a pending import keeps of its preview: counts, the format, the columns
// and their use, a few sample rows and failures, each cell cut short. It is
// stored with the pending import (JSON), so a front end can draw the preview
// again (and the progress, and the outcome) without reading the file.
import { count, esc, num } from "../blocks/blocks.ts";
import type { RowFailure } from "./contact.ts";
import type { ImportPreview } from "./preview.ts";
import { columnLetter } from "./rows.ts";

export interface PreviewSummary {
  rows: number;
  valid: number;
  failed: number;
  /** `CSV, utf-8 with BOM, semicolon-separated`, `xlsx, sheet “Contacts”`. */
  format: string;
  columns: Array<{ header: string; target: string | null; letter: string }>;
  samples: Array<{ row: number; contact: Record<string, string> }>;
  /** The samples' columns in the order of the file's output (an object stored as jsonb loses its key order). */
  sampleKeys?: string[];
  /** Rows whose number has no country code while no country is set (absent from older previews). */
  noCountry?: number;
  /** The columns' labels by target and output key (absent from older previews: targetLabel's words then). */
  labels?: Record<string, string>;
  /** Rows that will fail (a phone repeated from an earlier row is not one: it is `repeated`). */
  failures: Array<{ row: number; phone: string; reason: string }>;
  /**
   * Rows whose phone an earlier row of the file has: skipped at the import
   * (the earlier row carries the contact), counted apart from `failed`.
   * Absent from previews stored before it was counted.
   */
  repeated?: number;
  /** The first few of them. */
  repeats?: Array<{ row: number; phone: string }>;
  /** Why nothing can be imported with this mapping; empty when ready. */
  problems: string[];
  /** Values that will not be imported, columns read as another member: ImportPreview.warnings (absent from older previews). */
  warnings?: string[];
}

const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;

export function summarizePreview(p: ImportPreview): PreviewSummary {
  const shape = p.shape;
  const format =
    shape.format === "xlsx"
      ? `xlsx${shape.sheet ? `, sheet “${shape.sheet}”` : ""}`
      : `CSV, ${shape.encoding ?? "utf-8"}${shape.bom ? " with BOM" : ""}${shape.delimiterName ? `, ${shape.delimiterName}-separated` : ""}`;
  const repeated = p.failuresByCode.duplicate ?? 0;
  const isRepeat = (f: RowFailure) => f.code === "duplicate";
  return {
    rows: p.rows,
    valid: p.valid,
    failed: p.failed - repeated,
    repeated,
    repeats: p.failures
      .filter(isRepeat)
      .slice(0, 5)
      .map((f) => ({ row: f.row, phone: cut(f.phone, 30) })),
    format,
    columns: p.columns
      .slice(0, 40)
      .map((c) => ({ header: cut(c.header, 60), target: c.target, letter: columnLetter(c.column) })),
    sampleKeys: Object.keys(p.samples[0]?.contact ?? {}),
    noCountry: p.failuresByCode.phone_no_country ?? 0,
    labels: Object.fromEntries(
      Object.entries(p.labels ?? {})
        .filter(([k]) => p.columns.some((c) => c.target === k) || k in (p.samples[0]?.contact ?? {}))
        .map(([k, v]) => [k, cut(v, 40)]),
    ),
    samples: p.samples.slice(0, 5).map((s) => ({
      row: s.row,
      contact: Object.fromEntries(Object.entries(s.contact).map(([k, v]) => [k, cut(v, 40)])),
    })),
    failures: p.failures
      .filter((f) => !isRepeat(f))
      .slice(0, 10)
      .map((f) => ({ row: f.row, phone: cut(f.phone, 30), reason: cut(f.reason, 200) })),
    problems: p.problems,
    warnings: (p.warnings ?? []).slice(0, 10).map((w) => cut(w, 300)),
  };
}

/**
 * `2 rows repeat the phone of an earlier row (row 5: +34 600…, row 9: …): they
 * are skipped, the earlier row is imported.` as mrkdwn; empty when none.
 */
export function repeatsLine(s: Pick<PreviewSummary, "repeated" | "repeats">): string {
  const n = s.repeated ?? 0;
  if (n === 0) return "";
  const shown = (s.repeats ?? []).map((r) => `row ${r.row}: ${esc(r.phone)}`);
  const more = n - shown.length;
  const list = shown.length ? ` (${shown.join(", ")}${more > 0 ? `, ${num(more)} more` : ""})` : "";
  return `${count(n, "row")} ${n === 1 ? "repeats" : "repeat"} the phone of an earlier row${list}: ${n === 1 ? "it is" : "they are"} skipped, the earlier row is imported.`;
}

/**
 * When numbers of the file have no country code and no country is set: the
 * line that says so ("611 222 334 has no country code and no country is set:
 * an admin can set one in Settings"), naming how many rows; else undefined.
 */
export function countryNeeded(s: PreviewSummary): string | undefined {
  const first = s.failures.find((f) => /no country is set/.test(f.reason));
  if (!first) return undefined;
  const n = s.noCountry ?? 1;
  return `${first.phone || "A number"} has no country code and no country is set: an admin can set one in Settings${n > 1 ? ` (${n.toLocaleString("en-US")} rows need it)` : ""}.`;
}
