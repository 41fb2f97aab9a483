import { describe, expect, it } from "vitest";
import { call, postCreated, withSandbox } from "../helpers/sandbox.ts";

const sandbox = withSandbox({ campaignTickMs: 0 });

describe("sandbox contact fields", () => {
  it("creates with defaults, refuses a changed key, updates and soft-deletes", async () => {
    const sb = sandbox();
    const created = await postCreated(sb, "/contact-fields", { key: "shoe_size", label: "Shoe size" });
    expect(created).toMatchObject({ key: "shoe_size", label: "Shoe size", type: "text", position: 0 });
    const id = created.id;

    expect(
      (await call(sb, "POST", "/contact-fields", { body: { key: "shoe_size", label: "Again" } })).status,
    ).toBe(409);
    const badKey = await call(sb, "POST", "/contact-fields", { body: { key: "Shoe Size", label: "x" } });
    expect(badKey.body.message).toEqual([expect.stringMatching(/^key must be a lower-case slug/)]);

    const keyChange = await call(sb, "PATCH", `/contact-fields/${id}`, { body: { key: "size" } });
    expect(keyChange.status).toBe(400);
    expect(keyChange.body.message[0]).toMatch(/^key cannot be changed/);

    const updated = await call(sb, "PATCH", `/contact-fields/${id}`, {
      body: { type: "number", position: 9 },
    });
    expect(updated.body).toMatchObject({ key: "shoe_size", label: "Shoe size", type: "number", position: 9 });

    const listed = await call(sb, "GET", "/contact-fields");
    expect(listed.body.data.map((f: { key: string }) => f.key)).toContain("shoe_size");
    expect(listed.body.meta.total).toBe(listed.body.data.length);

    expect((await call(sb, "DELETE", `/contact-fields/${id}`)).status).toBe(200);
    expect((await call(sb, "PATCH", `/contact-fields/${id}`, { body: { label: "x" } })).status).toBe(404);
    const after = await call(sb, "GET", "/contact-fields");
    expect(after.body.data.map((f: { key: string }) => f.key)).not.toContain("shoe_size");
    // A deleted field's key is no longer accepted on contacts.
    const contact = await call(sb, "POST", "/contacts", {
      body: { phone: "+14155558100", custom_fields: { shoe_size: "42" } },
    });
    expect(contact.status).toBe(400);
  });
});

describe("sandbox contact groups", () => {
  it("creates a group, adds and removes members, counts them, soft-deletes", async () => {
    const sb = sandbox();
    const g = await postCreated(sb, "/contact-groups", { name: "Testers", description: "For tests" });
    expect(g).toMatchObject({ name: "Testers", description: "For tests", memberCount: 0 });
    const id = g.id;

    const added = await call(sb, "POST", `/contact-groups/${id}/contacts`, {
      body: { contactIds: [1, 2, 3] },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ groupId: id, added: 3, memberCount: 3 });
    const again = await call(sb, "POST", `/contact-groups/${id}/contacts`, { body: { contactIds: [3, 4] } });
    expect(again.body).toEqual({ groupId: id, added: 1, memberCount: 4 });

    const unknown = await call(sb, "POST", `/contact-groups/${id}/contacts`, {
      body: { contactIds: [5, 999999] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toEqual(["contactIds.1 999999 does not name a contact"]);
    expect((await call(sb, "GET", `/contact-groups/${id}`)).body.memberCount).toBe(4);

    const removed = await call(sb, "DELETE", `/contact-groups/${id}/contacts`, {
      body: { contactIds: [1, 2] },
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ groupId: id, removed: 2, memberCount: 2 });

    const members = await call(sb, "GET", "/contacts", { query: { groupId: id } });
    expect(members.body.data.map((c: { id: number }) => c.id).sort()).toEqual([3, 4]);

    const listed = await call(sb, "GET", "/contact-groups");
    expect(listed.body.data.find((x: { id: number }) => x.id === id).memberCount).toBe(2);

    const renamed = await call(sb, "PATCH", `/contact-groups/${id}`, { body: { name: "Testers 2" } });
    expect(renamed.body).toMatchObject({ name: "Testers 2", description: "For tests" });

    expect(
      (await call(sb, "POST", `/contact-groups/${id}/contacts`, { body: { contactIds: [] } })).status,
    ).toBe(400);
    expect((await call(sb, "DELETE", `/contact-groups/${id}`)).body).toEqual({ id, deleted: true });
    expect((await call(sb, "GET", `/contact-groups/${id}`)).status).toBe(404);
    expect(
      (await call(sb, "POST", `/contact-groups/${id}/contacts`, { body: { contactIds: [1] } })).status,
    ).toBe(404);
    const listedAfter = await call(sb, "GET", "/contact-groups");
    expect(listedAfter.body.data.map((x: { id: number }) => x.id)).not.toContain(id);
  });
});

describe("sandbox tags", () => {
  it("creates with an upper-cased colour, keeps names unique, updates, soft-deletes", async () => {
    const sb = sandbox();
    const t = await postCreated(sb, "/tags", { name: "Urgent", color: "#ff0000" });
    expect(t).toMatchObject({ name: "Urgent", color: "#FF0000", description: null });
    const id = t.id;
    expect((await call(sb, "POST", "/tags", { body: { name: "urgent", color: "#00FF00" } })).status).toBe(
      409,
    );
    const badColor = await call(sb, "POST", "/tags", { body: { name: "Blue", color: "blue" } });
    expect(badColor.body.message).toEqual([expect.stringMatching(/^color must be a hexadecimal colour/)]);
    const missing = await call(sb, "POST", "/tags", { body: { name: "Blue" } });
    expect(missing.body.message).toEqual(["color is required"]);

    const updated = await call(sb, "PATCH", `/tags/${id}`, {
      body: { description: "Answer within the hour" },
    });
    expect(updated.body).toMatchObject({
      name: "Urgent",
      color: "#FF0000",
      description: "Answer within the hour",
    });
    expect((await call(sb, "GET", `/tags/${id}`)).body.description).toBe("Answer within the hour");

    expect((await call(sb, "DELETE", `/tags/${id}`)).status).toBe(200);
    expect((await call(sb, "GET", `/tags/${id}`)).status).toBe(404);
    // The name is free again once the tag is deleted.
    expect((await call(sb, "POST", "/tags", { body: { name: "Urgent", color: "#FF0000" } })).status).toBe(
      201,
    );
    const listed = await call(sb, "GET", "/tags");
    expect(listed.body.data.filter((x: { name: string }) => x.name === "Urgent")).toHaveLength(1);
    expect((await call(sb, "GET", "/tags", { query: { page: 1 } })).status).toBe(400);
  });
});
