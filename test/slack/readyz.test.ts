// GET /readyz (issue 10 §6): ready when the store answers, 503 with the reason
// when it does not; /healthz only says the process is alive.
import { describe, expect, it } from "vitest";
import { openTestDb } from "../helpers/db.ts";
import { startHarness } from "./harness.ts";
import { TestCore } from "./test-core.ts";

describe("readiness", () => {
  it("answers 200 while the database answers, and 503 once it does not, while /healthz stays 200", async () => {
    const db = await openTestDb();
    const h = await startHarness(() => new TestCore(), { db });
    try {
      const ready = await fetch(`${h.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      // Slack (the bot token's auth.test) is reported beside the store; the harness has no API check.
      expect(await ready.json()).toEqual({
        ready: true,
        checks: { store: { ok: true }, slack: { ok: true } },
      });

      await db.close();
      const down = await fetch(`${h.baseUrl}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ ready: false, reason: "the database does not answer" });
      expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
