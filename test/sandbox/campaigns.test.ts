import { describe, expect, it } from "vitest";
import { call, manualClock, type Rec, withSandbox } from "../helpers/sandbox.ts";

const clock = manualClock();
// A batch of 2 makes the pace visible: each tick sends at most 2 pending recipients.
const sandbox = withSandbox({ campaignTickMs: 0, campaignBatch: 2, now: clock.now });

async function audience(label: string, phones: string[], optOut: string[] = []) {
  const sb = sandbox();
  const group = await call(sb, "POST", "/contact-groups", { body: { name: label } });
  const ids: number[] = [];
  for (const phone of phones) {
    const c = await call(sb, "POST", "/contacts", { body: { phone, first_name: label } });
    expect(c.status).toBe(201);
    ids.push(c.body.id);
    if (optOut.includes(phone)) await call(sb, "POST", `/contacts/${c.body.id}/opt-out`);
  }
  await call(sb, "POST", `/contact-groups/${group.body.id}/contacts`, { body: { contactIds: ids } });
  return { groupId: group.body.id as number, contactIds: ids };
}

async function approvedTemplate(): Promise<Rec> {
  const r = await call(sandbox(), "GET", "/templates", { query: { channelId: 1, status: "approved" } });
  return r.body.data.find((t: Rec) => t.name === "order_update");
}

/** POST /campaigns on channel 1 with the approved template order_update, and what `body` adds. */
async function postCampaign(body: Rec) {
  return call(sandbox(), "POST", "/campaigns", {
    body: { integrationId: 1, templateId: (await approvedTemplate()).id, ...body },
  });
}

describe("sandbox campaigns", () => {
  it("lists the seeded campaigns, filters by status", async () => {
    const sb = sandbox();
    const all = await call(sb, "GET", "/campaigns");
    expect(all.body.meta.total).toBeGreaterThanOrEqual(2);
    const completed = await call(sb, "GET", "/campaigns", { query: { status: "completed" } });
    expect(completed.body.data.length).toBeGreaterThan(0);
    expect(completed.body.data.every((c: Rec) => c.status === "completed")).toBe(true);
    const done = completed.body.data[0];
    const drafts = await call(sb, "GET", "/campaigns", { query: { status: "draft" } });
    expect(drafts.body.data.length).toBeGreaterThan(0);
    expect((await call(sb, "GET", `/campaigns/${done.id}/recipients`)).body.meta.limit).toBe(50);
  });

  // The seeded completed campaign has recipients in every final status.
  it.each(["sent", "delivered", "read", "failed", "skipped"])(
    "lists the seeded completed campaign's %s recipients, as many as its stats say",
    async (status) => {
      const sb = sandbox();
      const completed = await call(sb, "GET", "/campaigns", { query: { status: "completed" } });
      const done = completed.body.data[0];
      expect(done.stats[status]).toBeGreaterThan(0);
      const r = await call(sb, "GET", `/campaigns/${done.id}/recipients`, { query: { status } });
      expect(r.body.meta.total).toBe(done.stats[status]);
      expect(r.body.data.every((x: Rec) => x.status === status)).toBe(true);
    },
  );

  it("refuses a campaign whose template is not approved, tag or audience unknown (400, nothing created)", async () => {
    const sb = sandbox();
    const before = (await call(sb, "GET", "/campaigns")).body.meta.total;
    const templates = (await call(sb, "GET", "/templates")).body.data as Rec[];
    const pending = templates.find((t) => t.status === "pending")!;
    const otherChannel = templates.find((t) => t.integrationId === 2 && t.status === "approved")!;
    const r = await postCampaign({
      name: "Bad",
      templateId: pending.id,
      conversationTagId: 9999,
      groupIds: [9999],
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^templateId ${pending.id} must name an approved template of channel 1: it is pending`),
        ),
        "conversationTagId 9999 does not name a tag",
        "groupIds.0 9999 does not name a group",
      ]),
    );
    const wrongChannel = await call(sb, "POST", "/campaigns", {
      body: { name: "Bad", integrationId: 1, templateId: otherChannel.id, contactIds: [1] },
    });
    expect(wrongChannel.body.message[0]).toMatch(/belongs to channel 2/);
    const badParam = await postCampaign({ name: "Bad", contactIds: [1], templateParameters: { x: "1" } });
    expect(badParam.body.message[0]).toMatch(/^templateParameters\.x is not a placeholder/);
    expect((await call(sb, "GET", "/campaigns")).body.meta.total).toBe(before);
  });

  it("takes the spec's documented body alone, and refuses to send it without an audience, in words (409)", async () => {
    const sb = sandbox();
    const tag = (await call(sb, "GET", "/tags")).body.data[0];
    const created = await postCampaign({ name: "Spec body", conversationTagId: tag.id });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "draft",
      groupIds: [],
      contactIds: [],
      conversationTagId: tag.id,
    });
    const sent = await call(sb, "POST", `/campaigns/${created.body.id}/send`);
    expect(sent.status).toBe(409);
    expect(sent.body.message).toMatch(
      new RegExp(`^campaign ${created.body.id} has no audience: it names no group and no contact`),
    );
    expect((await call(sb, "GET", `/campaigns/${created.body.id}`)).body.status).toBe("draft");
  });

  it("sends: running, recipients built with opted-out skipped, paced by ticks, unreachable failed, then completed", async () => {
    const sb = sandbox();
    const phones = ["+14155557001", "+14155557002", "+14155557003", "+14155557009", "+14155557005"];
    const { groupId, contactIds } = await audience("Send test", phones, ["+14155557005"]);
    const t = await approvedTemplate();
    const tags = (await call(sb, "GET", "/tags")).body.data;
    const created = await postCampaign({
      name: "Send test",
      templateId: t.id,
      conversationTagId: tags[0].id,
      groupIds: [groupId],
      contactIds: [contactIds[0]],
      templateParameters: { first_name: "friend", order_id: "X-1" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "draft",
      integrationId: 1,
      templateId: t.id,
      conversationTagId: tags[0].id,
    });
    const id = created.body.id;

    const sent = await call(sb, "POST", `/campaigns/${id}/send`);
    expect(sent.status).toBe(201);
    expect(sent.body.status).toBe("running");
    // Five distinct contacts (contactIds overlaps the group), one opted out.
    expect(sent.body.stats).toMatchObject({ total: 5, pending: 4, skipped: 1 });
    const skipped = await call(sb, "GET", `/campaigns/${id}/recipients`, { query: { status: "skipped" } });
    expect(skipped.body.data.map((r: Rec) => r.phone)).toEqual(["+14155557005"]);

    expect((await call(sb, "POST", `/campaigns/${id}/send`)).status).toBe(409);

    await sb.tick();
    const afterOne = (await call(sb, "GET", `/campaigns/${id}`)).body;
    expect(afterOne.stats).toMatchObject({ pending: 2, sending: 2 });

    for (let i = 0; i < 10 && (await call(sb, "GET", `/campaigns/${id}`)).body.status === "running"; i++) {
      await sb.tick();
    }
    const done = (await call(sb, "GET", `/campaigns/${id}`)).body;
    expect(done.status).toBe("completed");
    expect(done.completedAt).toEqual(expect.any(String));
    expect(done.stats.pending + done.stats.sending).toBe(0);
    expect(done.stats.failed).toBe(1);
    const failed = await call(sb, "GET", `/campaigns/${id}/recipients`, { query: { status: "failed" } });
    expect(failed.body.data[0]).toMatchObject({
      phone: "+14155557009",
      error: expect.stringContaining("messaging network"),
    });
    expect((await call(sb, "POST", `/campaigns/${id}/cancel`)).status).toBe(409);
  });

  it("writes each sent template into the recipient's conversation, stamped with the campaign tag", async () => {
    const sb = sandbox();
    const { contactIds } = await audience("Messages test", ["+14155557201", "+14155557209"]);
    const contacts = await call(sb, "GET", "/contacts", { query: { search: "Ana" } });
    const ana = contacts.body.data.find((c: Rec) => c.first_name === "Ana");
    const chatUserOf = async (phone: string): Promise<Rec> => {
      const found = await call(sb, "GET", "/chat-users", { query: { search: phone } });
      expect(found.body.data, phone).toHaveLength(1);
      return (await call(sb, "GET", `/chat-users/${found.body.data[0].id}`)).body;
    };
    const anaBefore = (await chatUserOf(ana.phone)).conversations.find((v: Rec) => v.channelId === 1);
    const anaHistory = (await call(sb, "GET", `/conversations/${anaBefore.id}/messages`)).body.meta.total;
    // A tag Ana's conversation does not have yet, so stamping it is visible.
    const tag = (await call(sb, "GET", "/tags")).body.data.find((t: Rec) => t.id !== anaBefore.tagId);
    const created = await postCampaign({
      name: "Messages test",
      conversationTagId: tag.id,
      contactIds: [...contactIds, ana.id],
      templateParameters: { first_name: "friend", order_id: "M-7" },
    });
    const id = created.body.id;
    await call(sb, "POST", `/campaigns/${id}/send`);
    // Nothing is written before a tick sends the recipient.
    const newcomer = await call(sb, "GET", "/chat-users", { query: { search: "+14155557201" } });
    expect(newcomer.body.meta.total).toBe(0);

    await sb.tick();
    const recipients = (await call(sb, "GET", `/campaigns/${id}/recipients`)).body.data as Rec[];
    expect(recipients.map((r) => r.status)).toEqual(["sending", "sending", "pending"]);
    const messageOf: Record<string, number> = {};
    for (const r of recipients.filter((x) => x.status === "sending")) {
      const user = await chatUserOf(r.phone);
      expect(user).toMatchObject({ type: "phonechat", contactId: r.contactId });
      const conversation = user.conversations.find((v: Rec) => v.channelId === 1);
      expect(conversation.tagId).toBe(tag.id);
      const history = await call(sb, "GET", `/conversations/${conversation.id}/messages`);
      expect(history.body.data[0]).toMatchObject({
        direction: "outbound",
        type: "template",
        text: "Hi friend, your order M-7 is on its way.",
        template: { name: "order_update", language: "en" },
        metadata: { campaignId: id },
        status: "queued",
      });
      messageOf[r.phone] = history.body.data[0].id;
    }

    for (let i = 0; i < 10 && (await call(sb, "GET", `/campaigns/${id}`)).body.status === "running"; i++) {
      await sb.tick();
    }
    // Ana's existing conversation is reused: her history grows by one and takes the tag.
    const anaAfter = (await chatUserOf(ana.phone)).conversations.find((v: Rec) => v.channelId === 1);
    expect(anaAfter).toMatchObject({ id: anaBefore.id, tagId: tag.id });
    const anaMessages = await call(sb, "GET", `/conversations/${anaBefore.id}/messages`);
    expect(anaMessages.body.meta.total).toBe(anaHistory + 1);

    // Each message's status is its recipient's (unreachable: failed, with the same error).
    const final = (await call(sb, "GET", `/campaigns/${id}/recipients`)).body.data as Rec[];
    const statusOf = Object.fromEntries(final.map((r) => [r.phone, r.status]));
    expect(statusOf).toEqual({
      [ana.phone]: expect.stringMatching(/^(delivered|read)$/),
      "+14155557201": expect.stringMatching(/^(delivered|read)$/),
      "+14155557209": "failed",
    });
    for (const r of final) {
      const conversation = (await chatUserOf(r.phone)).conversations.find((v: Rec) => v.channelId === 1);
      const newest = await call(sb, "GET", `/conversations/${conversation.id}/messages`, {
        query: { limit: 1 },
      });
      if (messageOf[r.phone]) expect(newest.body.data[0].id).toBe(messageOf[r.phone]);
      const m = await call(sb, "GET", `/messages/${newest.body.data[0].id}`);
      expect(m.body, r.phone).toMatchObject({
        status: r.status,
        error: r.error,
        metadata: { campaignId: id },
      });
    }
  });

  it("cancels a running campaign: pending recipients are skipped, in-flight ones finish", async () => {
    const sb = sandbox();
    const phones = ["+14155557101", "+14155557102", "+14155557103", "+14155557104", "+14155557105"];
    const { groupId } = await audience("Cancel test", phones);
    const created = await postCampaign({ name: "Cancel test", groupIds: [groupId] });
    const id = created.body.id;
    await call(sb, "POST", `/campaigns/${id}/send`);
    await sb.tick();
    const cancelled = await call(sb, "POST", `/campaigns/${id}/cancel`);
    expect(cancelled.status).toBe(201);
    expect(cancelled.body.status).toBe("cancelled");
    expect(cancelled.body.stats).toMatchObject({ pending: 0, sending: 2, skipped: 3 });
    await sb.tick();
    const after = (await call(sb, "GET", `/campaigns/${id}`)).body;
    expect(after.status).toBe("cancelled");
    expect(after.stats).toMatchObject({ sending: 0, sent: 2, skipped: 3 });
    expect((await call(sb, "POST", `/campaigns/${id}/cancel`)).status).toBe(409);
    expect((await call(sb, "POST", `/campaigns/${id}/send`)).status).toBe(409);
  });

  it("cancels a draft, and starts a scheduled campaign when its time comes", async () => {
    const sb = sandbox();
    const t = await approvedTemplate();
    const draft = await call(sb, "POST", "/campaigns", {
      body: { name: "Draft", integrationId: 1, templateId: t.id, contactIds: [2] },
    });
    const c = await call(sb, "POST", `/campaigns/${draft.body.id}/cancel`);
    expect(c.body).toMatchObject({ status: "cancelled", stats: { total: 0 } });

    const at = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const scheduled = await call(sb, "POST", "/campaigns", {
      body: { name: "Later", integrationId: 1, templateId: t.id, contactIds: [2, 3], scheduledAt: at },
    });
    expect(scheduled.body).toMatchObject({ status: "scheduled", scheduledAt: at });
    await sb.tick();
    expect((await call(sb, "GET", `/campaigns/${scheduled.body.id}`)).body.status).toBe("scheduled");
    clock.advance(3_600_000);
    await sb.tick();
    const started = (await call(sb, "GET", `/campaigns/${scheduled.body.id}`)).body;
    expect(started.status).toBe("running");
    expect(started.stats.total).toBe(2);
    const past = await postCampaign({
      name: "Past",
      templateId: t.id,
      contactIds: [2],
      scheduledAt: "2000-01-01T00:00:00Z",
    });
    expect(past.body.message).toEqual(["scheduledAt must be in the future"]);
    expect((await call(sb, "GET", "/campaigns/999999")).status).toBe(404);
    expect((await call(sb, "POST", "/campaigns/999999/send")).status).toBe(404);
  });
});
