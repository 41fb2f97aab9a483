import { describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/index.ts";
import { call, onSandboxInDir, tempDir } from "../helpers/sandbox.ts";

describe("sandbox persistence", () => {
  it("keeps its data across a restart on the same data folder and seeds only once", async () => {
    const dir = await tempDir("sandbox-data-");
    const first = await onSandboxInDir(dir, { campaignTickMs: 0 }, async (sb) => {
      const seeded = (await call(sb, "GET", "/contacts")).body.meta.total;
      const tags = (await call(sb, "GET", "/tags")).body.meta.total;
      const created = await call(sb, "POST", "/contacts", {
        body: { phone: "+14155550999", first_name: "Kept" },
      });
      expect(created.status).toBe(201);
      await call(sb, "DELETE", "/contacts/1");
      return { seeded, tags, createdId: created.body.id };
    });

    await onSandboxInDir(dir, { campaignTickMs: 0 }, async (second) => {
      const contacts = await call(second, "GET", "/contacts");
      expect(contacts.body.meta.total).toBe(first.seeded); // one added, one deleted, no second seed
      expect((await call(second, "GET", `/contacts/${first.createdId}`)).body.first_name).toBe("Kept");
      expect((await call(second, "GET", "/contacts/1")).status).toBe(404);
      expect((await call(second, "GET", "/tags")).body.meta.total).toBe(first.tags);
      expect((await call(second, "GET", "/me")).body.organization.id).toBe(1);
    });
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
