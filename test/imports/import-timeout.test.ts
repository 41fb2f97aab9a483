// Issue 22 §1: an import request gets time sized for its file, and one that
// got no answer after it may have reached the API is told as *unknown*, never
// as failed: the front ends say what to check and never "share it again".
// The real sandbox behind the counting proxy, which holds the import request
// as a slow API would.

import { describe, expect, it } from "vitest";
import {
  ImportOutcomeUnknown,
  ImportService,
  importTimeoutMs,
  PendingImports,
} from "../../src/imports/index.ts";
import { ImportStore } from "../../src/store/imports.ts";
import { SHELL } from "../commands/helpers.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

/** How long the proxy holds the next import requests, in ms (0: not at all). */
let holdImportMs = 0;
const stack = useStack({
  sandbox: { seed: false },
  sandboxDb: "own",
  // A quick call gets 400 ms: an import held longer needs its own time.
  env: { API_TIMEOUT_MS: "400", IMPORT_TIMEOUT_MS: "1000", DEFAULT_COUNTRY: "US" },
  proxy: {
    hold: (method, url) =>
      method === "POST" && url.includes("/contacts/import") && holdImportMs
        ? new Promise((resolve) => setTimeout(resolve, holdImportMs))
        : undefined,
  },
});

let seq = 0;
const phone = () => `+1415557${String(1000 + seq++).padStart(4, "0")}`;
const job = (bytes: Buffer, service: ImportService) =>
  service.preview(bytes, []).then((p) => ({
    source: bytes,
    fileName: "big list.csv",
    mapping: p.mapping,
    fields: [],
    total: p.rows,
    updateExisting: false,
  }));

describe("the import's own timeout", () => {
  it("is 15 s plus 1 s per 1,000 rows, at most 10 minutes; the setting wins, within the 10 minutes", () => {
    expect(importTimeoutMs(0)).toBe(15_000);
    expect(importTimeoutMs(999)).toBe(16_000);
    expect(importTimeoutMs(60_000)).toBe(75_000);
    expect(importTimeoutMs(5_000_000)).toBe(600_000);
    expect(importTimeoutMs(60_000, 30_000)).toBe(30_000);
    expect(importTimeoutMs(10, 3_600_000)).toBe(600_000);
  });

  it("an import slower than a quick call's timeout still gets its answer (sized for the file)", async () => {
    const service = new ImportService({ defaultCountry: "US" });
    const p = phone();
    holdImportMs = 1200;
    try {
      const o = await service.run(await job(Buffer.from(`phone\n${p}\n`), service), stack().client);
      expect(o).toMatchObject({ rows: 1, created: 1, failed: 0 });
    } finally {
      holdImportMs = 0;
    }
  });

  it("no answer in time: ImportOutcomeUnknown, not a failure, with the file, the rows and the time given", async () => {
    const service = new ImportService({ defaultCountry: "US", timeoutMs: 500 });
    holdImportMs = 3000;
    try {
      const bytes = Buffer.from(`phone\n${phone()}\n${phone()}\n`);
      const err = await service.run(await job(bytes, service), stack().client).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportOutcomeUnknown);
      expect(err).toMatchObject({ fileName: "big list.csv", rows: 2, timeoutMs: 500 });
    } finally {
      holdImportMs = 0;
    }
  });

  it("a pending import (Slack's) is settled as unknown, not failed", async () => {
    const { db, client } = stack();
    const imports = new PendingImports(
      new ImportStore(db, stack().workspace),
      new ImportService({ defaultCountry: "US", timeoutMs: 500 }),
    );
    const bytes = Buffer.from(`phone\n${phone()}\n`);
    const proposed = await imports.propose(
      {
        fileId: "FUNKNOWN",
        contentHash: "hash-unknown",
        fileName: "late.csv",
        userId: "U0ALICE",
        channel: "C0GENERAL",
        updateExisting: false,
      },
      bytes,
      [],
    );
    holdImportMs = 3000;
    try {
      const run = await imports.run(proposed!.pending.id, "U0ALICE", {
        api: client,
        source: async () => bytes,
      });
      expect(run).toMatchObject({ ok: true, state: "unknown" });
      expect((await new ImportStore(db, stack().workspace).get(proposed!.pending.id))?.state).toBe("unknown");
    } finally {
      holdImportMs = 0;
    }
  });

  it("the shell's import says the outcome is unknown and what to check, never that it failed", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(join(tmpdir(), "sb-late-"));
    const path = join(dir, "late list.csv");
    const p = phone();
    await writeFile(path, `phone\n${p}\n`);
    holdImportMs = 3000;
    try {
      // IMPORT_TIMEOUT_MS=1000 from the settings.
      const ask = await stack().core.run(`import "${path}"`, SHELL);
      const reply = await stack().core.confirm(ask.confirmation!.id, SHELL);
      const text = `${reply.text}`;
      expect(text).toMatch(/Outcome unknown/);
      expect(text).toMatch(/within 1 s/);
      expect(text).toContain(`/sb contacts ${p}`);
      expect(text).not.toMatch(/failed|share .* again/i);
    } finally {
      holdImportMs = 0;
    }
  });
});

itLeavesBUntouched(stack);
