// Contact imports from uploaded CSV and xlsx files, independent of Slack:
// preview an upload, let the user change the mapping, then stream the
// normalized CSV to POST /contacts/import. The service (service.ts) and the
// pending imports (pending.ts) put the steps together for the front ends.
// See docs/imports.md.
export type { ContactValues, FailureCode, RowFailure } from "./contact.ts";
export { DELIMITER_NAMES, type Delimiter } from "./delimiter.ts";
export type { TextEncoding } from "./encoding.ts";
export { type ErrorLine, errorsCsv, neutralizeCell } from "./error-report.ts";
export { ImportFileError, ImportOutcomeUnknown, isImportOutcomeUnknown } from "./errors.ts";
export { contentHash } from "./hash.ts";
export {
  type ColumnMapping,
  type FieldDefinition,
  type IgnoredColumn,
  MappingError,
  type MappingOverride,
  noColumns,
  normalizeHeader,
  outputColumns,
  resolveMapping,
  suggestMapping,
  targetLabel,
} from "./headers.ts";
export {
  columnMappingSchema,
  type NormalizedCsv,
  type NormalizeOptions,
  type NormalizeProgress,
  type NormalizeSummary,
  normalizedCsv,
  normalizedFileName,
} from "./normalize.ts";
export {
  type NewPendingImport,
  type NotPending,
  PendingImports,
  type PendingRun,
  type Previewed,
  type RunHow,
} from "./pending.ts";
export { normalizePhone, type PhoneResult } from "./phone.ts";
export {
  type ColumnUse,
  type ImportOptions,
  type ImportPreview,
  type PreviewOptions,
  type Progress,
  previewImport,
} from "./preview.ts";
export type { FileShape } from "./rows.ts";
export {
  type ImportJob,
  type ImportOutcome,
  type ImportProgress,
  ImportService,
  type ImportServiceOptions,
  importFields,
  importTimeoutMs,
  MAX_IMPORT_TIMEOUT_MS,
  outcomeCounts,
  skippedLines,
} from "./service.ts";
export type { ImportSource } from "./source.ts";
export { countryNeeded, type PreviewSummary, repeatsLine, summarizePreview } from "./summary.ts";
export { removeStaleUploads, UPLOAD_TEMP_ROOT, uploadTempPath } from "./temp.ts";
export { XLSX_LIMITS, type XlsxLimits } from "./xlsx-limits.ts";
export type { XlsxOptions } from "./xlsx-rows.ts";
