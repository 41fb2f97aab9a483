// GET /readyz (issue 10 §6): ready when the store answers, 503 with the reason
// when it does not; /healthz only says the process is alive.
import { describe, expect, it } from "vitest";
import { cachedCheck } from "../../src/slack/ops-routes.ts";
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

describe("the checks of Slack and the messaging API", () => {
  it("say why they fail, and ask again only once the cache has run out", async () => {
    let calls = 0;
    let at = 0;
    const check = cachedCheck(
      async () => {
        calls++;
        throw Object.assign(new Error("An API error occurred: invalid_auth"), {
          data: { error: "invalid_auth" },
        });
      },
      30_000,
      () => at,
    );
    expect(await check()).toEqual({ ok: false, reason: "Slack answered invalid_auth" });
    at = 29_999;
    await check();
    expect(calls).toBe(1);
    at = 30_000;
    await check();
    expect(calls).toBe(2);
  });
});
