// Who may run Switchboard's writing steps (WORKFLOW_STEPS): under `writers`
// the step's actor input must be in SWITCHBOARD_WRITERS; `all` lets any
// actor write (still audited); `off` fails every step in words. A refused
// step makes no request.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../../src/store/audit.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Workflow } from "./steps-harness.ts";

const stacks: SlackStack[] = [];
let writers: Workflow;
let writersStack: SlackStack;
let all: Workflow;
let allStack: SlackStack;
let off: Workflow;
let offStack: SlackStack;

beforeAll(async () => {
  const start = async (env: Record<string, string>) => {
    const s = await startStack({
      writers: ["U0ALICE"],
      env: { MESSAGING_CHANNEL_ID: "1", ...env },
      slack: {},
    });
    stacks.push(s);
    return s;
  };
  writersStack = await start({});
  allStack = await start({ WORKFLOW_STEPS: "all" });
  offStack = await start({ WORKFLOW_STEPS: "off" });
  writers = new Workflow(writersStack.req, writersStack.fake);
  all = new Workflow(allStack.req, allStack.fake);
  off = new Workflow(offStack.req, offStack.fake);
}, 120_000);

afterAll(async () => {
  for (const s of stacks) await s.close();
});

const auditOf = async (s: SlackStack, executionId: string) =>
  (await new AuditLog(s.db, s.workspace).list({ limit: 1000 })).filter((e) =>
    e.command.includes(executionId),
  );

describe("WORKFLOW_STEPS=writers (the default) with SWITCHBOARD_WRITERS set", () => {
  it("fails a writing step whose actor is not a writer, naming the rule, without any request", async () => {
    expect(writersStack.config.WORKFLOW_STEPS).toBe("writers");
    const run = await writers.run("upsert_contact", { actor: "U0BOB", phone: "+14155557001" });
    expect(run.state).toBe("failed");
    expect(run.error).toBe(
      "The actor U0BOB may not make changes: only the people chosen to make changes (`/sb settings`) may run Switchboard's writing steps. Set the input actor to one of them, or ask an admin to add this person. Nothing was changed.",
    );
    expect(await auditOf(writersStack, run.id)).toEqual([]);
    expect((await writersStack.client.listContacts({ search: "+14155557001" })).items).toEqual([]);
  });

  it("runs it for a writer, and a look-up (no actor) for anyone", async () => {
    const run = await writers.run("upsert_contact", { actor: "U0ALICE", phone: "+14155557002" });
    expect(run.outputs).toMatchObject({ created: true });
    expect(await auditOf(writersStack, run.id)).toEqual([
      expect.objectContaining({ actor: "U0ALICE", operation: "createContact", ok: true }),
    ]);
    const look = await writers.run("look_up_contact", { phone: "+14155557002" });
    expect(look.outputs).toMatchObject({ found: true, contact_id: run.outputs?.contact_id });
  });
});

describe("WORKFLOW_STEPS=all", () => {
  it("lets any actor run a writing step, audited under that actor", async () => {
    const run = await all.run("upsert_contact", { actor: "U0BOB", phone: "+14155557003" });
    expect(run.error).toBeUndefined();
    expect(run.outputs).toMatchObject({ created: true });
    expect(await auditOf(allStack, run.id)).toEqual([
      expect.objectContaining({ actor: "U0BOB", operation: "createContact", ok: true }),
    ]);
  });
});

describe("WORKFLOW_STEPS=off", () => {
  it("fails every step in words, and changes nothing", async () => {
    const write = await off.run("upsert_contact", { actor: "U0ALICE", phone: "+14155557004" });
    expect(write.state).toBe("failed");
    expect(write.error).toMatch(
      /^Switchboard's workflow steps are turned off in its settings\. Nothing was changed\./,
    );
    // No setting's name in Slack (issue 39 §2).
    expect(write.error).not.toMatch(/[A-Z]+_[A-Z_]+/);
    const read = await off.run("look_up_contact", { phone: "+14155557004" });
    expect(read.state).toBe("failed");
    expect(await auditOf(offStack, write.id)).toEqual([]);
    expect((await offStack.client.listContacts({ search: "+14155557004" })).items).toEqual([]);
  });
});
