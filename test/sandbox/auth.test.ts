import { describe, expect, it } from "vitest";
import { call, manualClock, withSandbox } from "../helpers/sandbox.ts";

const clock = manualClock();
const sandbox = withSandbox({ readLimit: 4, writeLimit: 2, campaignTickMs: 0, now: clock.now });

describe("sandbox authentication, scopes and limits", () => {
  it("answers 401 without a key and with an unknown key, NestJS style", async () => {
    const none = await call(sandbox(), "GET", "/tags", { key: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({
      statusCode: 401,
      message: expect.stringContaining("X-API-Key"),
      error: "Unauthorized",
    });
    const wrong = await call(sandbox(), "GET", "/tags", { key: "sb_nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("Unauthorized");
  });

  it("lets the read-only key read but answers 403 to its writes, changing nothing", async () => {
    const sb = sandbox();
    const before = await call(sb, "GET", "/tags", { key: sb.readKey });
    expect(before.status).toBe(200);
    const write = await call(sb, "POST", "/tags", {
      key: sb.readKey,
      body: { name: "Nope", color: "#000000" },
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ statusCode: 403, error: "Forbidden" });
    expect(write.body.message).toContain("write scope");
    const after = await call(sb, "GET", "/tags", { key: sb.readKey });
    expect(after.body.meta.total).toBe(before.body.meta.total);
  });

  it("GET /me tells the organization, plan and key without the secret", async () => {
    const sb = sandbox();
    const me = await call(sb, "GET", "/me", { key: sb.readKey });
    expect(me.status).toBe(200);
    expect(me.body.organization.name).toEqual(expect.any(String));
    expect(me.body.plan.name).toEqual(expect.any(String));
    expect(me.body.apiKey.scopes).toEqual(["read"]);
    expect(me.body.apiKey.last4).toBe(sb.readKey.slice(-4));
    expect(JSON.stringify(me.body)).not.toContain(sb.readKey);
  });

  it("counts reads and writes apart per key and answers 429 with Retry-After", async () => {
    const sb = sandbox();
    clock.advance(61_000); // a fresh window for every counter
    // The write key's reads: 4 allowed, the 5th refused.
    for (let i = 0; i < 4; i++) expect((await call(sb, "GET", "/tags")).status).toBe(200);
    const limited = await call(sb, "GET", "/tags");
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ statusCode: 429, error: "Too Many Requests" });
    const retry = Number(limited.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);

    // Writes have their own budget, untouched by the reads.
    expect((await call(sb, "POST", "/tags", { body: { name: "Limit A", color: "#111111" } })).status).toBe(
      201,
    );
    expect((await call(sb, "POST", "/tags", { body: { name: "Limit B", color: "#222222" } })).status).toBe(
      201,
    );
    const writeLimited = await call(sb, "POST", "/tags", { body: { name: "Limit C", color: "#333333" } });
    expect(writeLimited.status).toBe(429);
    expect(writeLimited.headers.get("retry-after")).toBeTruthy();

    // Another key has its own counters.
    expect((await call(sb, "GET", "/tags", { key: sb.readKey })).status).toBe(200);

    // When the window is over the key may read again; the refused write changed nothing.
    clock.advance(retry * 1000);
    const again = await call(sb, "GET", "/tags");
    expect(again.status).toBe(200);
    expect(again.body.data.map((t: { name: string }) => t.name)).not.toContain("Limit C");
  });

  it("answers unknown routes 404 NestJS style", async () => {
    clock.advance(61_000);
    const r = await call(sandbox(), "GET", "/nothing-here");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ statusCode: 404, message: "Cannot GET /v1/nothing-here", error: "Not Found" });
  });
});
