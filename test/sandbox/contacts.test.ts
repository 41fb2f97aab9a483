import { describe, expect, it } from "vitest";
import { call, type Rec, withSandbox } from "../helpers/sandbox.ts";

const sandbox = withSandbox({ campaignTickMs: 0 });

const list = async (query: Record<string, string | number | boolean> = {}) => {
  const r = await call(sandbox(), "GET", "/contacts", { query: { limit: 100, ...query } });
  expect(r.status).toBe(200);
  return r.body as {
    data: Rec[];
    meta: { total: number; page: number; limit: number; totalPages: number };
  };
};

describe("sandbox contacts", () => {
  it("lists the seeded contacts in pages with totals", async () => {
    const all = await list();
    expect(all.meta.total).toBeGreaterThanOrEqual(30);
    const first = await list({ limit: 10, page: 1 });
    const second = await list({ limit: 10, page: 2 });
    expect(first.data).toHaveLength(10);
    expect(first.meta).toEqual({
      total: all.meta.total,
      page: 1,
      limit: 10,
      totalPages: Math.ceil(all.meta.total / 10),
    });
    const ids = new Set([...first.data, ...second.data].map((c) => c.id));
    expect(ids.size).toBe(20);
    const defaults = await call(sandbox(), "GET", "/contacts");
    expect(defaults.body.meta.limit).toBe(20);
  });

  it("creates, reads, updates and soft-deletes a contact", async () => {
    const sb = sandbox();
    const created = await call(sb, "POST", "/contacts", {
      body: {
        phone: "+34 612 34 56 78",
        first_name: "Lucía",
        email: "lucia@example.es",
        custom_fields: { points: 5 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      phone: "+34612345678",
      first_name: "Lucía",
      last_name: null,
      custom_fields: { points: 5 },
      wa_identified: true,
      opted_out: false,
    });
    const id = created.body.id;
    expect((await call(sb, "GET", `/contacts/${id}`)).body.email).toBe("lucia@example.es");

    const updated = await call(sb, "PATCH", `/contacts/${id}`, {
      body: { last_name: "Gómez", custom_fields: { loyalty_tier: "gold" } },
    });
    expect(updated.status).toBe(200);
    // custom_fields replaces the whole object.
    expect(updated.body).toMatchObject({
      first_name: "Lucía",
      last_name: "Gómez",
      custom_fields: { loyalty_tier: "gold" },
    });

    const dup = await call(sb, "POST", "/contacts", { body: { phone: "+34612345678" } });
    expect(dup.status).toBe(409);

    expect((await call(sb, "DELETE", `/contacts/${id}`)).body).toEqual({ id, deleted: true });
    const gone = await call(sb, "GET", `/contacts/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ statusCode: 404, error: "Not Found" });
    expect((await call(sb, "PATCH", `/contacts/${id}`, { body: { first_name: "X" } })).status).toBe(404);
    expect((await call(sb, "DELETE", `/contacts/${id}`)).status).toBe(404);
    expect((await list({ search: "lucia" })).data).toHaveLength(0);
    // The phone is free again after the soft delete.
    expect((await call(sb, "POST", "/contacts", { body: { phone: "+34612345678" } })).status).toBe(201);
  });

  it("answers 404 for ids that are not numbers", async () => {
    expect((await call(sandbox(), "GET", "/contacts/abc")).status).toBe(404);
    expect((await call(sandbox(), "GET", "/contacts/0")).status).toBe(404);
    expect((await call(sandbox(), "GET", "/contacts/999999")).status).toBe(404);
  });

  it("answers invalid input 400 with one 'field rule' message per problem, and changes nothing", async () => {
    const before = (await list()).meta.total;
    const r = await call(sandbox(), "POST", "/contacts", {
      body: { phone: "12", email: "nope", nickname: "x", custom_fields: { points: "many", shoe_size: 42 } },
    });
    expect(r.status).toBe(400);
    expect(r.body.statusCode).toBe(400);
    expect(r.body.error).toBe("Bad Request");
    expect(r.body.message).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^phone must be a phone number/),
        expect.stringMatching(/^email must be an e-mail/),
        "nickname is not a member this operation accepts",
      ]),
    );
    const fields = await call(sandbox(), "POST", "/contacts", {
      body: { phone: "+14155557777", custom_fields: { points: "many", shoe_size: 42 } },
    });
    expect(fields.status).toBe(400);
    expect(fields.body.message).toEqual(
      expect.arrayContaining([
        "custom_fields.points must be a number",
        expect.stringMatching(/^custom_fields\.shoe_size is not a custom field key/),
      ]),
    );
    const missing = await call(sandbox(), "POST", "/contacts", { body: {} });
    expect(missing.body.message).toEqual(["phone is required"]);
    const badJson = await fetch(`${sandbox().url}/contacts`, {
      method: "POST",
      headers: { "x-api-key": sandbox().apiKey, "content-type": "application/json" },
      body: "{",
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as Rec).message).toEqual(["(body) must be valid JSON"]);
    const emptyPatch = await call(sandbox(), "PATCH", "/contacts/1", { body: {} });
    expect(emptyPatch.status).toBe(400);
    expect((await list()).meta.total).toBe(before);
  });

  it("opts a contact out and in, and filters by optedOut", async () => {
    const sb = sandbox();
    const c = await call(sb, "POST", "/contacts", { body: { phone: "+14155558001", first_name: "Optie" } });
    const id = c.body.id;
    const optedOutBefore = await list({ optedOut: true });
    expect(optedOutBefore.data.every((x) => x.opted_out === true)).toBe(true);
    expect(optedOutBefore.data.length).toBeGreaterThan(0);
    expect(optedOutBefore.data.map((x) => x.id)).not.toContain(id);

    const out = await call(sb, "POST", `/contacts/${id}/opt-out`);
    expect(out.status).toBe(201);
    expect(out.body.opted_out).toBe(true);
    expect((await list({ optedOut: true })).data.map((x) => x.id)).toContain(id);
    expect((await list({ optedOut: false })).data.map((x) => x.id)).not.toContain(id);

    const back = await call(sb, "POST", `/contacts/${id}/opt-in`);
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({ opted_out: false, opted_out_at: null });
    expect((await list({ optedOut: false })).data.map((x) => x.id)).toContain(id);
    expect((await call(sb, "POST", "/contacts/999999/opt-out")).status).toBe(404);
    expect((await call(sb, "GET", "/contacts", { query: { optedOut: "maybe" } })).body.message).toEqual([
      "optedOut must be true or false",
    ]);
  });

  it("searches first name, last name, phone and email, case-insensitively", async () => {
    const byFirst = await list({ search: "priya" });
    expect(byFirst.data.map((c) => c.first_name)).toEqual(["Priya"]);
    const byLast = await list({ search: "MARTINEZ" });
    expect(byLast.data.map((c) => c.last_name)).toEqual(["Martinez"]);
    const byEmail = await list({ search: "oscar.silva@" });
    expect(byEmail.data.map((c) => c.first_name)).toEqual(["Oscar"]);
    const byPhone = await list({ search: "415 555 0212" });
    expect(byPhone.data.map((c) => c.phone)).toEqual(["+14155550212"]);
    const literal = await list({ search: "%" });
    expect(literal.meta.total).toBe(0);
  });

  it("filters by group and combines filters", async () => {
    const sb = sandbox();
    const groups = await call(sb, "GET", "/contact-groups");
    const newsletter = groups.body.data.find((g: { name: string }) => g.name === "Newsletter");
    const members = await list({ groupId: newsletter.id });
    expect(members.meta.total).toBe(newsletter.memberCount);
    const optedOutMembers = await list({ groupId: newsletter.id, optedOut: true });
    expect(optedOutMembers.meta.total).toBeGreaterThan(0);
    expect(optedOutMembers.meta.total).toBeLessThan(members.meta.total);
    expect(optedOutMembers.data.every((c) => c.opted_out)).toBe(true);
    expect((await list({ groupId: 99999 })).meta.total).toBe(0);
    expect((await call(sb, "GET", "/contacts", { query: { limit: 101 } })).body.message).toEqual([
      "limit must be between 1 and 100",
    ]);
    expect((await call(sb, "GET", "/contacts", { query: { page: 0 } })).status).toBe(400);
    expect((await call(sb, "GET", "/contacts", { query: { sort: "x" } })).body.message).toEqual([
      "sort is not a member this operation accepts",
    ]);
  });
});
