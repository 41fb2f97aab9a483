// The inputs of Workflow Builder steps as Workflow Builder sends them: texts
// (maybe blank), key=value one a line. Each problem names the input.
import { describe, expect, it } from "vitest";
import { keyValueLines, textInput } from "../../src/commands/steps.ts";

describe("step inputs", () => {
  it("reads a text input: trimmed, blank as absent, numbers as text", () => {
    expect(textInput({ a: "  Ana " }, "a")).toBe("Ana");
    expect(textInput({ a: "   " }, "a")).toBeUndefined();
    expect(textInput({ a: null }, "a")).toBeUndefined();
    expect(textInput({}, "a")).toBeUndefined();
    expect(textInput({ a: 12 }, "a")).toBe("12");
  });

  it("reads key=value lines: blank lines skipped, = kept in values, each problem with its line", () => {
    expect(keyValueLines({ v: "first_name=Ana\r\n\n order_id = A=12 \n" }, "v")).toEqual({
      first_name: "Ana",
      order_id: "A=12",
    });
    expect(keyValueLines({}, "v")).toEqual({});
    expect(() => keyValueLines({ v: "a=1\n=2" }, "v")).toThrow(
      'Input v, line 2: "=2" is not key=value. Write one per line, for example name=Ana',
    );
    expect(() => keyValueLines({ v: "a=1\na=2" }, "v")).toThrow("Input v: a is given twice");
  });
});
