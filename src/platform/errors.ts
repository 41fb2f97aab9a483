// The one root of every error Switchboard throws on purpose. Each has a
// stable `code`, so callers tell them apart with a guard (`isSwitchboardError`,
// `hasCode`, or the API's `isApiError`) rather than by the shape of the object.
// Anything else that reaches a handler is a bug or a fault of a dependency.
import { randomBytes } from "node:crypto";

export abstract class SwitchboardError extends Error {
  /** Stable, machine-readable: `user_input`, `import_file`, `api_rate_limit`… */
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export const isSwitchboardError = (err: unknown): err is SwitchboardError => err instanceof SwitchboardError;

/** True for a SwitchboardError with this code. */
export function hasCode<C extends string>(err: unknown, code: C): err is SwitchboardError & { code: C } {
  return isSwitchboardError(err) && err.code === code;
}

/** A setting is missing or wrong: the operator fixes it (the message names the setting). */
export class ConfigError extends SwitchboardError {
  readonly code = "config";
}

/** A problem with what the user asked that only shows while running (for example: which channel?). */
export class UserError extends SwitchboardError {
  readonly code = "user_input";
  /** Show the command's usage under the message. */
  readonly showUsage: boolean;
  /** What the person can do instead, as buttons (command lines run by whoever clicks). */
  readonly choices: Array<{ text: string; line: string; style?: "primary" }>;
  constructor(
    message: string,
    showUsage = true,
    choices: Array<{ text: string; line: string; style?: "primary" }> = [],
  ) {
    super(message);
    this.showUsage = showUsage;
    this.choices = choices;
  }
}

/** A short reference that ties what a person is told to the log line of the failure. */
export function errorRef(): string {
  return randomBytes(4).toString("hex");
}
