import { SwitchboardError } from "../platform/errors.ts";

/**
 * A problem with the file as a whole (not one row): unsupported format, not
 * text, a quote never closed, no header. The message is meant for the user.
 */
export class ImportFileError extends SwitchboardError {
  readonly code = "import_file";
}

/**
 * The import request got no answer, or its connection broke, after the file
 * may have reached the API: some, all or none of the rows may be in. Not a
 * failure: the person checks the contacts before importing again.
 */
export class ImportOutcomeUnknown extends SwitchboardError {
  readonly code = "import_unknown";
  readonly fileName: string;
  /** Rows the API was sent (valid rows of the file). */
  readonly rows: number;
  /** How long the request was given, in ms, when it timed out. */
  readonly timeoutMs?: number;
  readonly groupId?: number;
  /** The group the import created first, if any. */
  readonly newGroup?: { id: number; name: string };
  constructor(
    o: {
      fileName: string;
      rows: number;
      timeoutMs?: number;
      groupId?: number;
      newGroup?: { id: number; name: string };
    },
    cause?: unknown,
  ) {
    super(
      `No answer from the messaging API about the import of ${o.fileName}${
        o.timeoutMs ? ` within ${Math.round(o.timeoutMs / 1000)} s` : ""
      }: some, all or none of its contacts may have been imported.`,
      { cause },
    );
    this.fileName = o.fileName;
    this.rows = o.rows;
    this.timeoutMs = o.timeoutMs;
    this.groupId = o.groupId;
    this.newGroup = o.newGroup;
  }
}

export const isImportOutcomeUnknown = (err: unknown): err is ImportOutcomeUnknown =>
  err instanceof ImportOutcomeUnknown;
