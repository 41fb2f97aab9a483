import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/index.ts";
import { openDb } from "../../src/store/db.ts";
import { call } from "../helpers/sandbox.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("sandbox persistence", () => {
  it("keeps its data across a restart on the same data folder and seeds only once", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sandbox-data-"));
    dirs.push(dir);

    const db1 = await openDb({ dataDir: dir });
    const first = await startSandbox({ db: db1, campaignTickMs: 0 });
    const seeded = (await call(first, "GET", "/contacts")).body.meta.total;
    const tagsBefore = (await call(first, "GET", "/tags")).body.meta.total;
    const created = await call(first, "POST", "/contacts", {
      body: { phone: "+14155550999", first_name: "Kept" },
    });
    expect(created.status).toBe(201);
    await call(first, "DELETE", "/contacts/1");
    await first.close();
    await db1.close();

    const db2 = await openDb({ dataDir: dir });
    const second = await startSandbox({ db: db2, campaignTickMs: 0 });
    try {
      const contacts = await call(second, "GET", "/contacts");
      expect(contacts.body.meta.total).toBe(seeded); // one added, one deleted, no second seed
      expect((await call(second, "GET", `/contacts/${created.body.id}`)).body.first_name).toBe("Kept");
      expect((await call(second, "GET", "/contacts/1")).status).toBe(404);
      expect((await call(second, "GET", "/tags")).body.meta.total).toBe(tagsBefore);
      expect((await call(second, "GET", "/me")).body.organization.id).toBe(1);
    } finally {
      await second.close();
      await db2.close();
    }
    // Two on-disk PGlite starts: slow on a busy machine; a timeout, not a timed assertion.
  }, 120_000);

  it("starts unseeded when asked, and closes the database it opened itself", async () => {
    const bare = await startSandbox({ seed: false, campaignTickMs: 0 });
    const contacts = await call(bare, "GET", "/contacts");
    expect(contacts.body.meta.total).toBe(0);
    await bare.close();
    await expect(bare.db.query("select 1")).rejects.toThrow();
  }, 60_000);
});
