// Several organizations in one sandbox (docs/sandbox.md, "Several
// organizations"): each key sees its own organization only, another's ids are
// 404 like missing ones, the clock's work runs for all, keys are kept hashed.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { NewOrganization, Sandbox } from "../../src/sandbox/index.ts";
import { call, manualClock, type Rec, sendTemplate, withSandbox } from "../helpers/sandbox.ts";

const clock = manualClock();
const sandbox = withSandbox({ campaignTickMs: 0, campaignBatch: 100, now: clock.now });

/** Organization B, made once for the file through the in-process API. */
let made: Promise<NewOrganization> | undefined;
const orgB = () => {
  made ??= sandbox().createOrganization({ name: "Beta Shop" });
  return made;
};

async function control(sb: Sandbox, path: string, body: unknown, key: string | null) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers["x-api-key"] = key;
  const res = await fetch(`${sb.controlUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Rec };
}

const ids = (page: Rec) => (page.data as Rec[]).map((r) => r.id as number);

describe("sandbox: several organizations", () => {
  it("keeps the first organization as it was: id, name, channels 1 and 2, the seed, the option keys", async () => {
    const sb = sandbox();
    const me = await call(sb, "GET", "/me");
    expect(me.status).toBe(200);
    expect(me.body.organization).toMatchObject({ id: sb.orgId, name: "Acme Retail (sandbox)" });
    expect(sb.orgId).toBe(1);
    expect(me.body.channels.map((c: Rec) => c.id)).toEqual([1, 2]);
    expect(await sb.channels()).toEqual([
      { id: 1, name: "Acme Store" },
      { id: 2, name: "Acme Support" },
    ]);
    expect((await call(sb, "GET", "/contacts")).body.meta.total).toBe(30);
    expect((await call(sb, "GET", "/me", { key: sb.readKey })).body.apiKey.scopes).toEqual(["read"]);
  });

  it("makes an organization with fresh keys, its own channels and the demo data; GET /me answers each key's own", async () => {
    const sb = sandbox();
    const b = await orgB();
    expect(b).toMatchObject({ name: "Beta Shop", apiKey: expect.stringMatching(/^sbx_/) });
    expect(b.readKey).toMatch(/^sbx_/);
    expect(b.id).not.toBe(sb.orgId);
    expect(new Set([b.apiKey, b.readKey, sb.apiKey, sb.readKey]).size).toBe(4);

    const me = await call(sb, "GET", "/me", { key: b.apiKey });
    expect(me.body.organization).toMatchObject({ id: b.id, name: "Beta Shop" });
    expect(me.body.apiKey).toMatchObject({ scopes: ["read", "write"], last4: b.apiKey.slice(-4) });
    const channels = await sb.channels({ orgId: b.id });
    expect(channels.map((c) => c.name)).toEqual(["Acme Store", "Acme Support"]);
    expect(channels.some((c) => c.id === 1 || c.id === 2)).toBe(false);
    expect(me.body.channels.map((c: Rec) => c.id)).toEqual(channels.map((c) => c.id));
    expect(await sb.channels({ apiKey: b.readKey })).toEqual(channels);
    expect(await sb.organizationOf(b.readKey)).toEqual({ id: b.id, name: "Beta Shop" });
    expect(await sb.organizationOf("sbx_nothing")).toBeUndefined();
    await expect(sb.channels({ apiKey: "sbx_nothing" })).rejects.toThrow("not a key");
    // The read-only key reads, never writes.
    expect((await call(sb, "GET", "/me", { key: b.readKey })).body.apiKey.scopes).toEqual(["read"]);
    expect(
      (await call(sb, "POST", "/tags", { key: b.readKey, body: { name: "x", color: "#000000" } })).status,
    ).toBe(403);

    // The same demo, its own rows: the same phone numbers in both organizations.
    const a30 = await call(sb, "GET", "/contacts", { query: { limit: 100 } });
    const b30 = await call(sb, "GET", "/contacts", { key: b.apiKey, query: { limit: 100 } });
    expect(b30.body.meta.total).toBe(30);
    expect(b30.body.data.map((c: Rec) => c.phone).sort()).toEqual(
      a30.body.data.map((c: Rec) => c.phone).sort(),
    );
    expect(ids(b30.body).filter((id) => ids(a30.body).includes(id))).toEqual([]);
  });

  it("lists only the key's own records, of every kind", async () => {
    const sb = sandbox();
    const b = await orgB();
    const tag = await call(sb, "POST", "/tags", {
      key: b.apiKey,
      body: { name: "Only B", color: "#123456" },
    });
    expect(tag.status).toBe(201);
    const group = await call(sb, "POST", "/contact-groups", {
      key: b.apiKey,
      body: { name: "Only B group" },
    });
    const field = await call(sb, "POST", "/contact-fields", {
      key: b.apiKey,
      body: { key: "only_b", label: "Only B" },
    });
    expect(field.status).toBe(201);
    for (const path of [
      "/contacts",
      "/tags",
      "/contact-groups",
      "/contact-fields",
      "/templates",
      "/campaigns",
      "/chat-users",
    ]) {
      const a = await call(sb, "GET", path, { query: path === "/contacts" ? { limit: 100 } : {} });
      const bb = await call(sb, "GET", path, {
        key: b.apiKey,
        query: path === "/contacts" ? { limit: 100 } : {},
      });
      expect(a.status, path).toBe(200);
      expect(bb.body.meta.total, path).toBeGreaterThan(0);
      expect(
        ids(bb.body).filter((id) => ids(a.body).includes(id)),
        `${path}: no record in both`,
      ).toEqual([]);
    }
    const aTags = (await call(sb, "GET", "/tags")).body.data.map((t: Rec) => t.name);
    expect(aTags).not.toContain("Only B");
    expect((await call(sb, "GET", "/contact-groups")).body.data.map((g: Rec) => g.id)).not.toContain(
      group.body.id,
    );
    expect((await call(sb, "GET", "/contact-fields")).body.data.map((f: Rec) => f.key)).not.toContain(
      "only_b",
    );
    // A chat user's conversations and messages are its organization's.
    const bUsers = await call(sb, "GET", "/chat-users", { key: b.apiKey, query: { includeMessages: true } });
    const aUsers = await call(sb, "GET", "/chat-users", { query: { includeMessages: true } });
    const bMessages = bUsers.body.data.flatMap((u: Rec) => u.messages.map((m: Rec) => m.id));
    const aMessages = aUsers.body.data.flatMap((u: Rec) => u.messages.map((m: Rec) => m.id));
    expect(bMessages.length).toBeGreaterThan(0);
    expect(bMessages.filter((id: number) => aMessages.includes(id))).toEqual([]);
    // Search sees its own organization only.
    const search = await call(sb, "GET", "/contacts", { key: b.apiKey, query: { search: "martinez" } });
    expect(search.body.meta.total).toBe(1);
    expect(ids(search.body)).not.toContain(
      ids((await call(sb, "GET", "/contacts", { query: { search: "martinez" } })).body)[0],
    );
  });

  it("answers another organization's record id exactly like a missing one, and changes nothing", async () => {
    const sb = sandbox();
    const b = await orgB();
    const bKey = { key: b.apiKey };
    const first = async (path: string, query: Record<string, string | number | boolean> = {}) =>
      ((await call(sb, "GET", path, { ...bKey, query })).body.data as Rec[])[0]!;
    const contact = await first("/contacts");
    const tag = await first("/tags");
    const group = await first("/contact-groups");
    const field = await first("/contact-fields");
    const template = await first("/templates", { status: "rejected" });
    const campaign = await first("/campaigns", { status: "draft" });
    const user = await call(sb, "GET", `/chat-users/${(await first("/chat-users")).id}`, bKey);
    const conversationId = user.body.conversations[0].id as number;
    const messageId = user.body.messages[0].id as number;

    const missing = 99_999_999;
    // Every route that names a record, by the kind of record; a write goes with a body.
    const routes: Record<string, Array<string | [string, unknown]>> = {
      Contact: [
        "GET /contacts/{id}",
        ["PATCH /contacts/{id}", { first_name: "Taken" }],
        "POST /contacts/{id}/opt-out",
        "DELETE /contacts/{id}",
      ],
      Tag: ["GET /tags/{id}", ["PATCH /tags/{id}", { name: "Taken" }], "DELETE /tags/{id}"],
      Group: [
        "GET /contact-groups/{id}",
        ["POST /contact-groups/{id}/contacts", { contactIds: [1] }],
        "DELETE /contact-groups/{id}",
      ],
      "Contact field": [["PATCH /contact-fields/{id}", { label: "Taken" }], "DELETE /contact-fields/{id}"],
      Template: ["GET /templates/{id}", "DELETE /templates/{id}"],
      Campaign: [
        "GET /campaigns/{id}",
        "GET /campaigns/{id}/recipients",
        "POST /campaigns/{id}/send",
        "POST /campaigns/{id}/cancel",
      ],
      "Chat user": [
        "GET /chat-users/{id}",
        ["PATCH /chat-users/{id}", { standardFields: { name: "Taken" } }],
      ],
      Conversation: ["GET /conversations/{id}/messages"],
      Message: ["GET /messages/{id}"],
    };
    const idOf: Record<string, number> = {
      Contact: contact.id,
      Tag: tag.id,
      Group: group.id,
      "Contact field": field.id,
      Template: template.id,
      Campaign: campaign.id,
      "Chat user": user.body.id,
      Conversation: conversationId,
      Message: messageId,
    };
    const probes = Object.entries(routes).flatMap(([what, list]) =>
      list.map((route) => {
        const [line, body] = typeof route === "string" ? [route, undefined] : route;
        const [method, path] = line.split(" ") as [string, string];
        return { what, method, path, body };
      }),
    );
    expect(probes).toHaveLength(22);
    for (const { what, method, path, body } of probes) {
      const id = idOf[what]!;
      // The organization's own key reaches its record (reads only: writes would change it).
      if (method === "GET")
        expect((await call(sb, method, path.replace("{id}", String(id)), bKey)).status).toBe(200);
      const other = await call(sb, method, path.replace("{id}", String(id)), { body });
      const none = await call(sb, method, path.replace("{id}", String(missing)), { body });
      expect(other.status, `${method} ${path}`).toBe(404);
      expect(other.body, `${method} ${path}`).toEqual({
        ...none.body,
        message: none.body.message.replace(String(missing), String(id)),
      });
      expect(other.body.message).toBe(`${what} ${id} was not found`);
    }
    // The control route too: A's key cannot make B's chat user write.
    const written = await control(sb, `/chat-users/${user.body.id}/messages`, { text: "x" }, sb.apiKey);
    expect(written.status).toBe(404);

    // Nothing of B changed.
    expect((await call(sb, "GET", `/contacts/${contact.id}`, bKey)).body).toEqual(contact);
    expect((await call(sb, "GET", `/tags/${tag.id}`, bKey)).body.name).toBe(tag.name);
    expect((await call(sb, "GET", `/campaigns/${campaign.id}`, bKey)).body.status).toBe("draft");
    expect((await call(sb, "GET", `/chat-users/${user.body.id}`, bKey)).body.name).toBe(user.body.name);
    expect((await call(sb, "GET", `/contact-fields`, bKey)).body.data.map((f: Rec) => f.id)).toContain(
      field.id,
    );
  });

  it("refuses another organization's records named in a body (400), as records that do not exist", async () => {
    const sb = sandbox();
    const b = await orgB();
    const bContact = ((await call(sb, "GET", "/contacts", { key: b.apiKey })).body.data as Rec[])[0]!;
    const bGroup = ((await call(sb, "GET", "/contact-groups", { key: b.apiKey })).body.data as Rec[])[0]!;
    const bTemplate = (
      (await call(sb, "GET", "/templates", { key: b.apiKey, query: { status: "approved" } })).body
        .data as Rec[]
    )[0]!;
    const [bChannel] = await sb.channels({ orgId: b.id });

    const member = await call(sb, "POST", "/contact-groups/1/contacts", {
      body: { contactIds: [bContact.id] },
    });
    expect(member.status).toBe(400);
    expect(member.body.message).toEqual([`contactIds.0 ${bContact.id} does not name a contact`]);
    const campaign = await call(sb, "POST", "/campaigns", {
      body: { name: "Stolen", integrationId: 1, templateId: bTemplate.id, groupIds: [bGroup.id] },
    });
    expect(campaign.status).toBe(400);
    expect(campaign.body.message).toEqual(
      expect.arrayContaining([
        `templateId ${bTemplate.id} must name an approved template of channel 1: there is no such template`,
        `groupIds.0 ${bGroup.id} does not name a group`,
      ]),
    );
    const onChannel = await call(sb, "POST", "/templates", {
      body: {
        integrationId: bChannel!.id,
        name: "stolen",
        language: "en",
        category: "UTILITY",
        bodyText: "Hi",
      },
    });
    expect(onChannel.status).toBe(400);
    const message = await sendTemplate(sb, { contactId: bContact.id }, "welcome_message");
    expect(message.status).toBe(400);
    expect(message.body.message).toEqual([`contactId ${bContact.id} does not name a contact`]);
  });

  it("keeps unique rules per organization: the same phone, tag name and field key in two organizations", async () => {
    const sb = sandbox();
    const b = await orgB();
    for (const key of [sb.apiKey, b.apiKey]) {
      expect((await call(sb, "POST", "/contacts", { key, body: { phone: "+14155557001" } })).status).toBe(
        201,
      );
      expect(
        (await call(sb, "POST", "/tags", { key, body: { name: "Twice", color: "#101010" } })).status,
      ).toBe(201);
      expect(
        (await call(sb, "POST", "/contact-fields", { key, body: { key: "twice", label: "Twice" } })).status,
      ).toBe(201);
    }
    // Within one organization the rules hold.
    const again = await call(sb, "POST", "/contacts", { key: b.apiKey, body: { phone: "+14155557001" } });
    expect(again.status).toBe(409);
    const csv = new FormData();
    csv.append("updateExisting", "false");
    csv.append("file", new Blob(["phone,first_name\n+14155557001,Dup\n+14155557002,New\n"]), "b.csv");
    const imported = await call(sb, "POST", "/contacts/import", { key: b.apiKey, body: csv });
    expect(imported.body).toMatchObject({ created: 1, skipped: 1 });
    const inA = await call(sb, "GET", "/contacts", { query: { search: "+14155557002" } });
    expect(inA.body.meta.total).toBe(0);
  });

  it("runs the clock for every organization: B's campaign, template and message move, A's stay", async () => {
    const sb = sandbox();
    const b = await orgB();
    const bKey = { key: b.apiKey };
    const [bStore] = await sb.channels({ orgId: b.id });
    const aCampaigns = (await call(sb, "GET", "/campaigns", { query: { limit: 100 } })).body.data;
    const aUsers = (await call(sb, "GET", "/chat-users", { query: { limit: 100 } })).body;

    const group = await call(sb, "POST", "/contact-groups", { ...bKey, body: { name: "B audience" } });
    const contactIds: number[] = [];
    for (const phone of ["+14155558101", "+14155558102", "+14155558109"]) {
      contactIds.push(
        (await call(sb, "POST", "/contacts", { ...bKey, body: { phone, first_name: "Bee" } })).body.id,
      );
    }
    // The same phones in A: a campaign of B must never land on A's chat users.
    for (const phone of ["+14155558101", "+14155558102"]) {
      expect((await call(sb, "POST", "/contacts", { body: { phone, first_name: "Ay" } })).status).toBe(201);
    }
    // …and A's chat user of one of them, whom B's campaign must not write to.
    const aInbound = await sb.inbound({ phone: "+14155558101", text: "I am A's" });
    await call(sb, "POST", `/contact-groups/${group.body.id}/contacts`, { ...bKey, body: { contactIds } });
    const t = (
      (await call(sb, "GET", "/templates", { ...bKey, query: { status: "approved" } })).body.data as Rec[]
    ).find((x) => x.name === "welcome_message")!;
    const campaign = await call(sb, "POST", "/campaigns", {
      ...bKey,
      body: { name: "B run", integrationId: bStore!.id, templateId: t.id, groupIds: [group.body.id] },
    });
    expect(campaign.status).toBe(201);
    expect((await call(sb, "POST", `/campaigns/${campaign.body.id}/send`, bKey)).body.status).toBe("running");
    const pending = await call(sb, "POST", "/templates", {
      ...bKey,
      body: {
        integrationId: bStore!.id,
        name: "b_later",
        language: "en",
        category: "UTILITY",
        bodyText: "Later",
      },
    });
    expect(pending.body.status).toBe("pending");
    const sent = await sendTemplate(sb, { contactId: contactIds[1]! }, "welcome_message", {
      channelId: bStore!.id,
      ...bKey,
    });
    expect(sent.status).toBe(201);

    clock.advance(60_000);
    for (let i = 0; i < 5; i++) await sb.tick();

    const done = await call(sb, "GET", `/campaigns/${campaign.body.id}`, bKey);
    expect(done.body).toMatchObject({ status: "completed", stats: { total: 3, failed: 1 } });
    expect((await call(sb, "GET", `/templates/${pending.body.id}`, bKey)).body.status).toBe("approved");
    expect((await call(sb, "GET", `/messages/${sent.body.id}`, bKey)).body.status).toMatch(/delivered|read/);
    const recipients = await call(sb, "GET", `/campaigns/${campaign.body.id}/recipients`, bKey);
    expect(recipients.body.data.map((r: Rec) => r.contactId).sort()).toEqual([...contactIds].sort());
    // The campaign's messages are B's: in B's conversations of B's chat users, on B's channel.
    const bUsers = await call(sb, "GET", "/chat-users", {
      ...bKey,
      query: { search: "+1415555810", includeMessages: true },
    });
    expect(bUsers.body.meta.total).toBe(3);
    for (const u of bUsers.body.data as Rec[]) {
      expect(u.messages.some((m: Rec) => m.metadata?.campaignId === campaign.body.id)).toBe(true);
      expect(u.messages.every((m: Rec) => m.channelId === bStore!.id)).toBe(true);
    }

    // A is untouched: its campaigns as they were, no chat user for its same phones, the same chat users.
    expect((await call(sb, "GET", "/campaigns", { query: { limit: 100 } })).body.data).toEqual(aCampaigns);
    const aAfter = await call(sb, "GET", "/chat-users", { query: { limit: 100 } });
    expect(aAfter.body.meta.total).toBe(aUsers.meta.total + 1);
    const aSame = await call(sb, "GET", "/chat-users", {
      query: { search: "+1415555810", includeMessages: true },
    });
    expect(aSame.body.data.map((u: Rec) => u.id)).toEqual([aInbound.chatUserId]);
    expect(aSame.body.data[0].messages.map((m: Rec) => m.text)).toEqual(["I am A's"]);
  });

  it("lets a chat user of B write in with B's key (control route and in-process)", async () => {
    const sb = sandbox();
    const b = await orgB();
    const user = (
      (await call(sb, "GET", "/chat-users", { key: b.apiKey, query: { type: "phonechat" } })).body
        .data as Rec[]
    )[0]!;
    const written = await control(sb, `/chat-users/${user.id}/messages`, { text: "From B" }, b.apiKey);
    expect(written.status).toBe(201);
    expect((await call(sb, "GET", `/messages/${written.body.id}`)).status).toBe(404);
    const inbound = await sb.inbound({ phone: "+14155559901", text: "New to B", of: { apiKey: b.apiKey } });
    expect((await call(sb, "GET", `/chat-users/${inbound.chatUserId}`, { key: b.apiKey })).body.phone).toBe(
      "+14155559901",
    );
    expect((await call(sb, "GET", `/chat-users/${inbound.chatUserId}`)).status).toBe(404);
  });

  it("counts the rate budget per key, not per organization", async () => {
    const sb = sandbox();
    const b = await orgB();
    clock.advance(61_000); // a fresh window for every key
    const a1 = await call(sb, "GET", "/tags", { key: sb.readKey });
    const b1 = await call(sb, "GET", "/tags", { key: b.readKey });
    const b2 = await call(sb, "GET", "/tags", { key: b.apiKey });
    const remaining = (r: { headers: Headers }) => Number(r.headers.get("x-ratelimit-remaining"));
    expect(remaining(b2)).toBe(remaining(b1));
    expect(remaining(await call(sb, "GET", "/tags", { key: b.readKey }))).toBe(remaining(b1) - 1);
    expect(remaining(a1)).toBe(remaining(b1));
  });

  it("POST /_sandbox/organizations: only the first organization's read-write key may make one", async () => {
    const sb = sandbox();
    const b = await orgB();
    expect((await control(sb, "/organizations", { name: "No key" }, null)).status).toBe(401);
    expect((await control(sb, "/organizations", { name: "Unknown" }, "sbx_unknown")).status).toBe(401);
    expect((await control(sb, "/organizations", { name: "Read only" }, sb.readKey)).status).toBe(403);
    const byB = await control(sb, "/organizations", { name: "By B" }, b.apiKey);
    expect(byB.status).toBe(403);
    expect(byB.body.message).toContain("first organization's read-write key");
    expect((await control(sb, "/organizations", { seed: "lots" }, sb.apiKey)).status).toBe(400);

    const made = await control(sb, "/organizations", { name: "Gamma", seed: "empty" }, sb.apiKey);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(Number),
      name: "Gamma",
      apiKey: expect.stringMatching(/^sbx_/),
      readKey: expect.stringMatching(/^sbx_/),
    });
    const me = await call(sb, "GET", "/me", { key: made.body.apiKey });
    expect(me.body.organization).toMatchObject({ id: made.body.id, name: "Gamma" });
    expect(me.body.channels).toHaveLength(2);
    // Empty: channels and nothing else.
    expect((await call(sb, "GET", "/contacts", { key: made.body.apiKey })).body.meta.total).toBe(0);
    expect((await call(sb, "GET", "/templates", { key: made.body.apiKey })).body.meta.total).toBe(0);
  });

  it("keeps no key in the clear in the database: only SHA-256 hashes", async () => {
    const sb = sandbox();
    const b = await orgB();
    const tables = await sb.db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'sandbox' and table_type = 'BASE TABLE'",
    );
    expect(tables.rows.map((t) => t.table_name)).toContain("api_keys");
    let text = "";
    for (const { table_name } of tables.rows) {
      const rows = await sb.db.query<{ row: string }>(`select t::text as row from sandbox.${table_name} t`);
      text += rows.rows.map((r) => r.row).join("\n");
    }
    for (const secret of [sb.apiKey, sb.readKey, b.apiKey, b.readKey]) expect(text).not.toContain(secret);
    const hashes = await sb.db.query<{ org_id: number; key_hash: string }>(
      "select org_id, key_hash from sandbox.api_keys where org_id = $1 order by id",
      [b.id],
    );
    expect(hashes.rows.map((r) => r.key_hash)).toEqual(
      [b.apiKey, b.readKey].map((k) => createHash("sha256").update(k).digest("hex")),
    );
  });

  it("names the organization in every row the sandbox's store writes", () => {
    // The org_id column's default is the first organization (for SQL written
    // before organizations): a statement that forgot it would write there.
    const dir = new URL("../../src/store/sandbox/", import.meta.url);
    const inserts: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const text = readFileSync(new URL(file, dir), "utf8");
      for (const m of text.matchAll(/insert into sandbox\.(\w+) \(([^)]*)\)/g)) {
        if (m[1] !== "organizations" && !/\borg_id\b/.test(m[2]!)) inserts.push(`${file}: ${m[1]}`);
      }
      expect(text, file).not.toMatch(/insert into sandbox\.\w+ select/);
    }
    expect(inserts).toEqual([]);
  });
});
