// Switchboard's Workflow Builder steps end to end: the fake Slack delivers a
// function_executed event as Slack does, the Bolt app runs the step through
// the real core and client against the sandbox, and ends it with
// functions.completeSuccess (outputs checked against manifest.yml) or
// functions.completeError (an error a workflow author can act on).

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessagingClient } from "../../src/api/client.ts";
import { AuditLog } from "../../src/store/audit.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { Workflow } from "./steps-harness.ts";

let stack: SlackStack;
let fake: FakeSlack;
let api: MessagingClient;
let wf: Workflow;
/** While set, the answer to the next message send is lost on its way back (the send happened). */
let loseNextSend = false;

beforeAll(async () => {
  stack = await startStack({
    env: { MESSAGING_CHANNEL_ID: "1" },
    slack: {},
    proxy: {
      drop: (method, url) => {
        if (!loseNextSend || method !== "POST" || !url.includes("/messages")) return false;
        loseNextSend = false;
        return true;
      },
    },
  });
  ({ fake } = stack);
  api = stack.client;
  wf = new Workflow(stack.req, fake);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** A phone number no other test uses. */
let n = 0;
const newPhone = () =>
  `+1415555${String(1000 + (++n % 9000) + Math.floor(Math.random() * 0)).padStart(4, "0")}`;
const unique = () => randomBytes(3).toString("hex");
/** Audit rows of one step run (their command names the workflow run and the step run). */
const auditOf = async (executionId: string) =>
  (await new AuditLog(stack.db, stack.workspace).list({ limit: 1000 })).filter((e) =>
    e.command.includes(executionId),
  );

describe("Send a message", () => {
  it("sends a template to a phone number, outputs the message id and status, and audits the workflow and the actor", async () => {
    const phone = newPhone();
    const run = await wf.run("send_message", {
      actor: "U0ALICE",
      phone,
      template_name: "order_update",
      template_language: "en",
      template_values: "first_name=Ana\norder_id=A-12",
    });
    expect(run.error).toBeUndefined();
    expect(run.state).toBe("completed");
    expect(run.outputs?.message_id).toMatch(/^\d+$/);
    expect(typeof run.outputs?.status).toBe("string");
    const message = await api.getMessage(Number(run.outputs?.message_id));
    expect(message).toMatchObject({ type: "template" });
    const audit = await auditOf(run.id);
    expect(audit).toEqual([
      expect.objectContaining({ actor: "U0ALICE", via: "slack", operation: "sendMessage", ok: true }),
    ]);
    expect(audit[0]?.command).toContain(`workflow run ${run.workflowExecutionId}`);
    expect(audit[0]?.command).toContain("send_message");
  });

  it("refuses two recipients, naming the inputs, before any request", async () => {
    const run = await wf.run("send_message", {
      actor: "U0ALICE",
      phone: newPhone(),
      contact_id: "12",
      text: "Hello",
    });
    expect(run.state).toBe("failed");
    expect(run.error).toBe(
      "Give exactly one of the inputs phone, contact_id or chat_user_id: phone and contact_id were given",
    );
    expect(await auditOf(run.id)).toEqual([]);
  });

  it("names the missing input and the bad line of template values", async () => {
    const noLang = await wf.run("send_message", {
      actor: "U0ALICE",
      phone: newPhone(),
      template_name: "order_update",
    });
    expect(noLang.error).toMatch(/template_language is required/);
    const badLine = await wf.run("send_message", {
      actor: "U0ALICE",
      phone: newPhone(),
      template_name: "order_update",
      template_language: "en",
      template_values: "first_name=Ana\norder A-12",
    });
    expect(badLine.error).toBe(
      'Input template_values, line 2: "order A-12" is not key=value. Write one per line, for example name=Ana',
    );
    const badPhone = await wf.run("send_message", { actor: "U0ALICE", phone: "call me", text: "Hi" });
    expect(badPhone.error).toMatch(/^Input phone: "call me" is not a phone number/);
  });

  it("fails with what the messaging API said: free text outside the 24-hour window", async () => {
    const run = await wf.run("send_message", { actor: "U0ALICE", phone: newPhone(), text: "Hello there" });
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(/messaging API refused/);
    expect(run.error).toMatch(/24-hour conversation window/);
    expect(run.error).not.toMatch(/[*`]|&lt;|sb_test/);
    // The write reached the API and was refused: it is audited as a failed write.
    expect(await auditOf(run.id)).toEqual([expect.objectContaining({ ok: false, actor: "U0ALICE" })]);
  });

  it("says the outcome is unknown when the API's answer is lost, and does not send again", async () => {
    loseNextSend = true;
    const run = await wf.run("send_message", {
      actor: "U0ALICE",
      phone: newPhone(),
      template_name: "order_update",
      template_language: "en",
      template_values: "first_name=Ana\norder_id=A-14",
    });
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(
      /^No answer from the messaging API: the change may or may not have been made\./,
    );
    expect(run.error).toMatch(/could happen twice/);
    const sends = stack.proxy?.seen.filter((r) => r.startsWith("POST") && r.includes("/messages")) ?? [];
    expect(sends.length).toBeGreaterThan(0);
    expect((await auditOf(run.id)).filter((e) => e.operation === "sendMessage")).toHaveLength(1);
  });

  it("fails when the actor input is empty, saying what to map it to", async () => {
    const run = await wf.run("send_message", { phone: newPhone(), text: "Hi" });
    expect(run.error).toMatch(/The input actor is empty.*Person who used this workflow/);
  });
});

describe("Add or update a contact", () => {
  it("creates, then updates the same phone with custom fields merged, and adds it to a group by name", async () => {
    const phone = newPhone();
    const groupName = `Leads ${unique()}`;
    const group = await api.createGroup({ name: groupName });
    const first = await wf.run("upsert_contact", {
      actor: "U0ALICE",
      phone,
      first_name: "Ana",
      custom_fields: "loyalty_tier=gold\nbirthday=1990-04-01",
    });
    expect(first.error).toBeUndefined();
    expect(first.outputs).toEqual({ contact_id: expect.stringMatching(/^\d+$/), created: true });
    const id = Number(first.outputs?.contact_id);
    const second = await wf.run("upsert_contact", {
      actor: "U0ALICE",
      phone,
      last_name: "Lima",
      custom_fields: "loyalty_tier=platinum",
      group: groupName.toUpperCase(),
    });
    expect(second.outputs).toEqual({ contact_id: String(id), created: false });
    const c = await api.getContact(id);
    expect(c).toMatchObject({ first_name: "Ana", last_name: "Lima" });
    expect((c as { custom_fields?: unknown }).custom_fields).toEqual({
      loyalty_tier: "platinum",
      birthday: "1990-04-01",
    });
    const members = await api.listContacts({ groupId: Number(group.id) });
    expect(members.items.map((m) => Number(m.id))).toEqual([id]);
  });

  it("refuses a bad e-mail before any request, and a group name two groups share", async () => {
    const phone = newPhone();
    const bad = await wf.run("upsert_contact", { actor: "U0ALICE", phone, email: "ana-at-example" });
    expect(bad.state).toBe("failed");
    expect(bad.error).toMatch(/^email must be an e-mail address/);
    expect(await auditOf(bad.id)).toEqual([]);
    const twin = `Twins ${unique()}`;
    await api.createGroup({ name: twin });
    await api.createGroup({ name: twin });
    const ambiguous = await wf.run("upsert_contact", { actor: "U0ALICE", phone, group: twin });
    expect(ambiguous.error).toMatch(
      new RegExp(
        `^Input group: 2 groups are named "${twin}" \\(ids \\d+, \\d+\\): give the group's id instead$`,
      ),
    );
    expect(await auditOf(ambiguous.id)).toEqual([]);
    expect((await api.listContacts({ search: phone })).items).toEqual([]);
  });
});

describe("Add a contact to a group", () => {
  it("adds a contact found by phone to a group found by id, with the member count", async () => {
    const c = await api.createContact({ phone: newPhone(), first_name: "Bo" });
    const g = await api.createGroup({ name: `Group ${unique()}` });
    const run = await wf.run("add_contact_to_group", {
      actor: "U0ALICE",
      phone: c.phone,
      group: String(g.id),
    });
    expect(run.error).toBeUndefined();
    expect(run.outputs).toEqual({
      group_id: String(g.id),
      contact_id: String(c.id),
      already_member: false,
      member_count: 1,
    });
    const again = await wf.run("add_contact_to_group", {
      actor: "U0ALICE",
      contact_id: String(c.id),
      group: String(g.id),
    });
    expect(again.outputs).toMatchObject({ already_member: true, member_count: 1 });
  });

  it("fails when no contact has the phone, and when the group is unknown", async () => {
    const phone = newPhone();
    const nobody = await wf.run("add_contact_to_group", { actor: "U0ALICE", phone, group: "Leads" });
    expect(nobody.error).toMatch(/no group has the id or name "Leads"|No contact has the phone number/);
    const g = await api.createGroup({ name: `Group ${unique()}` });
    const none = await wf.run("add_contact_to_group", { actor: "U0ALICE", phone, group: String(g.id) });
    expect(none.error).toBe(`No contact has the phone number ${phone} (input phone)`);
  });
});

describe("Look up a contact", () => {
  it("finds a contact by e-mail (any case), and completes with found=false when none has it", async () => {
    const email = `ana.${unique()}@example.com`;
    const c = await api.createContact({ phone: newPhone(), first_name: "Ana", last_name: "Lima", email });
    const run = await wf.run("look_up_contact", { email: email.toUpperCase() });
    expect(run.outputs).toEqual({
      found: true,
      contact_id: String(c.id),
      phone: c.phone,
      first_name: "Ana",
      last_name: "Lima",
      email,
      opted_out: false,
    });
    const none = await wf.run("look_up_contact", { phone: newPhone() });
    expect(none.state).toBe("completed");
    expect(none.outputs).toEqual({ found: false });
  });

  it("fails with the count when several contacts have it", async () => {
    const email = `twin.${unique()}@example.com`;
    await api.createContact({ phone: newPhone(), email });
    await api.createContact({ phone: newPhone(), email });
    const run = await wf.run("look_up_contact", { email });
    expect(run.state).toBe("failed");
    expect(run.error).toMatch(/^2 contacts have the e-mail address/);
  });
});

describe("an execution delivered twice", () => {
  it("sends once, and answers the repeat with the same outcome", async () => {
    const inputs = {
      actor: "U0ALICE",
      phone: newPhone(),
      template_name: "order_update",
      template_language: "en",
      template_values: "first_name=Ana\norder_id=A-13",
    };
    const first = await wf.run("send_message", inputs);
    expect(first.state).toBe("completed");
    const again = await stack.req.functionExecuted("send_message", inputs, { execution: first });
    expect(again.status).toBe(200);
    // The repeat repeats the answer (Slack refuses it: the step is already complete), not the send.
    await fake.waitFor(() => wf.endings(first).length === 2, 10_000, "the repeated answer");
    expect(wf.endings(first).map((c) => c.response.error ?? "ok")).toEqual([
      "ok",
      "execution_not_in_running_state",
    ]);
    expect((await auditOf(first.id)).filter((e) => e.operation === "sendMessage")).toHaveLength(1);
  });

  it("acknowledges Slack's retry of the same event (X-Slack-Retry-Num) at once, and does no work for it", async () => {
    const { execution } = fake.executeFunction("upsert_contact", { actor: "U0ALICE", phone: newPhone() });
    const first = await stack.req.functionExecuted("upsert_contact", {}, { execution });
    expect(first.status).toBe(200);
    await wf.finished(execution);
    // The same event id again: Slack did not see the first ack. It must get one (200), not a 404 after a wait.
    const retry = await stack.req.functionExecuted(
      "upsert_contact",
      {},
      {
        execution,
        eventId: first.eventId,
        retryNum: 1,
      },
    );
    expect(retry.status).toBe(200);
    await stack.waitForLog((l) => l.msg === "repeated Slack event dropped" && l.eventId === first.eventId);
    expect(wf.endings(execution)).toHaveLength(1);
    expect((await auditOf(execution.id)).filter((e) => e.operation === "createContact")).toHaveLength(1);
  });

  it("runs the write once when both deliveries arrive together", async () => {
    const { execution } = fake.executeFunction("upsert_contact", { actor: "U0ALICE", phone: newPhone() });
    await Promise.all([
      stack.req.functionExecuted("upsert_contact", {}, { execution }),
      stack.req.functionExecuted("upsert_contact", {}, { execution }),
    ]);
    await wf.finished(execution);
    expect(execution.outputs).toMatchObject({ created: true });
    expect((await auditOf(execution.id)).filter((e) => e.operation === "createContact")).toHaveLength(1);
  });
});

itLeavesBUntouched(() => stack);
