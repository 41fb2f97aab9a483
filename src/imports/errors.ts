import { SwitchboardError } from "../errors.ts";

/**
 * A problem with the file as a whole (not one row): unsupported format, not
 * text, a quote never closed, no header. The message is meant for the user.
 */
export class ImportFileError extends SwitchboardError {
  readonly code = "import_file";
}
