// One error root: every error thrown on purpose is a SwitchboardError with a
// stable code, so callers use guards, not the shape of the object.
import { describe, expect, it } from "vitest";
import { NotFoundError, RateLimitError, ValidationError } from "../src/api/errors.ts";
import { TransportFailure } from "../src/api/http.ts";
import { ArgumentError, UserError } from "../src/commands/registry.ts";
import { TokenizeError } from "../src/commands/tokenize.ts";
import { ImportFileError } from "../src/imports/errors.ts";
import { MappingError } from "../src/imports/headers.ts";
import { ConfigError, hasCode, isSwitchboardError } from "../src/platform/errors.ts";
import { PostRefusedError } from "../src/reports/scheduler.ts";
import { UploadRefused } from "../src/slack/features/uploads/download.ts";
import { DatabaseUnavailableError } from "../src/store/db.ts";
import { DuplicateError } from "../src/store/sandbox/errors.ts";

describe("the error root", () => {
  const all = [
    new ValidationError("bad", []),
    new NotFoundError("gone"),
    new RateLimitError("slow down", 1000),
    new TransportFailure("reset", false, false),
    new UserError("which channel?"),
    new ArgumentError("bad", "id"),
    new TokenizeError("unclosed quote"),
    new ConfigError("MESSAGING_API_KEY is required"),
    new MappingError(["no phone column"]),
    new ImportFileError("not text"),
    new PostRefusedError("channel_not_found"),
    new UploadRefused("too big"),
    new DatabaseUnavailableError("no database"),
    new DuplicateError("name", "taken"),
  ];

  it.each(all.map((e) => [e.constructor.name, e] as const))(
    "gives %s its class name and a code",
    (_name, e) => {
      expect(isSwitchboardError(e)).toBe(true);
      expect(e.name).toBe(e.constructor.name);
      expect(e.code).toMatch(/^[a-z_]+$/);
    },
  );

  it("gives every error a distinct code", () => {
    expect(new Set(all.map((e) => e.code)).size).toBe(all.length);
  });

  it("tells API errors by their kind: api_<kind>", () => {
    expect(new ValidationError("bad", []).code).toBe("api_validation");
    expect(hasCode(new UserError("x"), "user_input")).toBe(true);
    expect(hasCode(new Error("x"), "user_input")).toBe(false);
    expect(isSwitchboardError({ code: "user_input", message: "duck" })).toBe(false);
  });
});
