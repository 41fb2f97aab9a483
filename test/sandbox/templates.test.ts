import { describe, expect, it } from "vitest";
import { call, manualClock, withSandbox } from "../helpers/sandbox.ts";

const clock = manualClock();
const sandbox = withSandbox({ campaignTickMs: 0, templateApprovalMs: 30_000, now: clock.now });

const body = (name: string, extra: Record<string, unknown> = {}) => ({
  integrationId: 1,
  name,
  language: "en",
  category: "UTILITY",
  bodyText: "Hello {{first_name}}, your code is {{code}}.",
  bodyExamples: { first_name: "Ana", code: "1234" },
  ...extra,
});

describe("sandbox templates", () => {
  it("lists seeded templates by channel and status", async () => {
    const sb = sandbox();
    const all = await call(sb, "GET", "/templates");
    const statuses = new Set(all.body.data.map((t: { status: string }) => t.status));
    expect(statuses).toEqual(new Set(["approved", "pending", "rejected"]));
    const approved = await call(sb, "GET", "/templates", { query: { status: "approved" } });
    expect(approved.body.data.length).toBeGreaterThanOrEqual(3);
    expect(approved.body.data.every((t: { status: string }) => t.status === "approved")).toBe(true);
    const languages = new Set(approved.body.data.map((t: { language: string }) => t.language));
    expect(languages.size).toBeGreaterThan(1);
    expect(approved.body.data.some((t: { placeholders: string[] }) => t.placeholders.length === 0)).toBe(
      true,
    );
    const channel2 = await call(sb, "GET", "/templates", { query: { channelId: 2 } });
    expect(channel2.body.data.length).toBeGreaterThan(0);
    expect(channel2.body.data.every((t: { integrationId: number }) => t.integrationId === 2)).toBe(true);
    const bad = await call(sb, "GET", "/templates", { query: { status: "live" } });
    expect(bad.body.message).toEqual(["status must be one of pending, approved, rejected, paused, disabled"]);
  });

  it("creates a template pending with a normalized name; sync approves it", async () => {
    const sb = sandbox();
    const created = await call(sb, "POST", "/templates", { body: body("Login Code") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "login_code",
      status: "pending",
      placeholders: ["first_name", "code"],
    });
    const dup = await call(sb, "POST", "/templates", { body: body("login code") });
    expect(dup.status).toBe(409);

    const sync = await call(sb, "POST", "/templates/sync", { body: { channelId: 1 } });
    expect(sync.status).toBe(201);
    expect(sync.body.channelId).toBe(1);
    expect(sync.body.approved).toBeGreaterThanOrEqual(1);
    expect((await call(sb, "GET", `/templates/${created.body.id}`)).body.status).toBe("approved");
    expect((await call(sb, "POST", "/templates/sync", { body: { channelId: 77 } })).status).toBe(400);
  });

  it("approves a template once the review delay has passed (injected clock + tick)", async () => {
    const sb = sandbox();
    const created = await call(sb, "POST", "/templates", { body: body("delayed_one", { integrationId: 2 }) });
    await sb.tick();
    expect((await call(sb, "GET", `/templates/${created.body.id}`)).body.status).toBe("pending");
    clock.advance(30_001);
    await sb.tick();
    const after = await call(sb, "GET", "/templates", { query: { channelId: 2, status: "approved" } });
    expect(after.body.data.map((t: { id: number }) => t.id)).toContain(created.body.id);
  });

  it("rejects templates whose name contains 'reject' at review", async () => {
    const sb = sandbox();
    const created = await call(sb, "POST", "/templates", {
      body: body("please_reject_me", { integrationId: 2 }),
    });
    await call(sb, "POST", "/templates/sync", { body: { channelId: 2 } });
    const t = await call(sb, "GET", `/templates/${created.body.id}`);
    expect(t.body.status).toBe("rejected");
    expect(t.body.rejectionReason).toEqual(expect.any(String));
  });

  it("deletes only pending, rejected or disabled templates; 409 otherwise", async () => {
    const sb = sandbox();
    const all = (await call(sb, "GET", "/templates")).body.data as Array<{ id: number; status: string }>;
    const approved = all.find((t) => t.status === "approved")!;
    const refused = await call(sb, "DELETE", `/templates/${approved.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: "Conflict" });
    expect(refused.body.message).toContain("approved");
    expect((await call(sb, "GET", `/templates/${approved.id}`)).status).toBe(200);

    const rejected = all.find((t) => t.status === "rejected")!;
    expect((await call(sb, "DELETE", `/templates/${rejected.id}`)).status).toBe(200);
    expect((await call(sb, "GET", `/templates/${rejected.id}`)).status).toBe(404);

    const pending = await call(sb, "POST", "/templates", { body: body("to_delete") });
    expect((await call(sb, "DELETE", `/templates/${pending.body.id}`)).body).toEqual({
      id: pending.body.id,
      deleted: true,
    });
    expect((await call(sb, "DELETE", `/templates/${pending.body.id}`)).status).toBe(404);
  });

  it("refuses invalid templates with field rules", async () => {
    const sb = sandbox();
    const r = await call(sb, "POST", "/templates", {
      body: body("bad_one", {
        category: "PROMO",
        footerText: "Reply {{stop}}",
        buttons: Array.from({ length: 11 }, () => ({ type: "QUICK_REPLY", text: "Yes" })),
      }),
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toEqual(
      expect.arrayContaining([
        "category must be one of UTILITY, MARKETING, AUTHENTICATION",
        "footerText must not contain placeholders",
        "buttons must have at most 10 buttons",
      ]),
    );
    const channel = await call(sb, "POST", "/templates", { body: body("no_channel", { integrationId: 42 }) });
    expect(channel.status).toBe(400);
    expect(channel.body.message).toEqual(["integrationId 42 does not name a channel of the organization"]);
    const names = (await call(sb, "GET", "/templates")).body.data.map((t: { name: string }) => t.name);
    expect(names).not.toContain("bad_one");
    expect(names).not.toContain("no_channel");
  });
});
