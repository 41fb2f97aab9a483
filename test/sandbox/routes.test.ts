import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/api/operations.ts";
import { call, withSandbox } from "../helpers/sandbox.ts";

const sandbox = withSandbox({ campaignTickMs: 0, readLimit: 1000, writeLimit: 1000 });

describe("sandbox routes", () => {
  it.each(OPERATIONS.map((op) => [op.fn, op] as const))("serves %s", async (_fn, op) => {
    // An unknown id: a served route answers 404 with its own message, an unserved one "Cannot …".
    const r = await call(sandbox(), op.method, op.path.replace("{id}", "999999"), {
      body: op.method === "GET" ? undefined : {},
    });
    expect(String(r.body?.message ?? ""), `${op.method} ${op.path}`).not.toMatch(/^Cannot /);
    expect(r.status).toBeLessThan(500);
  });
});
