// What the sandbox store reports beyond rows: a unique rule that refused a
// write. The HTTP layer turns it into 409; nothing above the store sees SQL codes.

import { SwitchboardError } from "../../platform/errors.ts";

export class DuplicateError extends SwitchboardError {
  readonly code = "duplicate";
  /** The member whose value must be unique, for example `name` of a tag. */
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

export const isUniqueViolation = (err: unknown): boolean =>
  typeof err === "object" && err !== null && (err as { code?: string }).code === "23505";
