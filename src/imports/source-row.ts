// One row of an upload as its reader gives it: a leaf, so the readers
// (csv-rows.ts, xlsx-*.ts) and rows.ts, which picks one, do not import each other.
export interface SourceRow {
  /** The row number a spreadsheet shows: the header is row 1. */
  row: number;
  cells: string[];
}
