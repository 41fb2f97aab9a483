// The wording every schema shares (one of a list, not empty, at least one member to change): used by
// the schemas, not re-exported by the facade.
import { z } from "zod";

export const oneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;
export const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: () => oneOf(values) });

export const nonEmpty = (what = "text") =>
  z
    .string({ error: `must be a ${what}` })
    .trim()
    .min(1, { error: "must not be empty" });

export const atLeastOne = (obj: Record<string, unknown>) => Object.values(obj).some((v) => v !== undefined);
// Only worth saying when nothing else is wrong (an unknown member is the better message).
export const nothingToUpdate = {
  error: "give at least one member to change",
  when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0,
};
