// Issue 21 §2: workflow steps always get an answer. A NUL or a megabyte in an
// input is answered in words, quoted as a short cleaned excerpt, and the run
// is stored (not left running); a NUL in a contact's name still gets its
// audit row; a step a crash left running is ended at start with
// functions.completeError in words. Real parts: the fake Slack delivers
// function_executed, the Bolt app, the core and the sandbox.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workFor } from "../../src/slack/context.ts";
import { STEPS } from "../../src/slack/listeners/functions/index.ts";
import { settleInterruptedSteps } from "../../src/slack/recovery/steps.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { StepRunStore } from "../../src/store/steps.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Workflow } from "./steps-harness.ts";

let stack: SlackStack;
let wf: Workflow;

beforeAll(async () => {
  stack = await startStack({
    env: { MESSAGING_CHANNEL_ID: "1" },
    slack: {},
    // The sandbox's store keeps no NUL; a real API may give one back, in a name.
    proxy: { rewrite: (_method, _url, body) => body.replaceAll("Marker Nulname", "Ana\\u0000Maria") },
  });
  wf = new Workflow(stack.req, stack.fake);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("workflow steps always get an answer", { timeout: 60_000 }, () => {
  it("a NUL in an input: answered in words with a cleaned excerpt, the run stored as failed", async () => {
    const run = await wf.run("send_message", { actor: "U0ALICE", phone: "call\u0000me", text: "Hi" });
    expect(run.error).toMatch(/^Input phone: "call\uFFFDme" is not a phone number/);
    expect(await new StepRunStore(stack.db, stack.workspace).get(run.id)).toMatchObject({ state: "failed" });
    const lone = await wf.run("send_message", { actor: "U0ALICE", phone: "\uD83Dcall", text: "Hi" });
    expect(lone.error).toMatch(/^Input phone: "\uFFFDcall" is not a phone number/);
    expect(await new StepRunStore(stack.db, stack.workspace).get(lone.id)).toMatchObject({ state: "failed" });
  });

  it("a megabyte in an input: the error quotes a short excerpt, never the whole input", async () => {
    const run = await wf.run("send_message", {
      actor: "U0ALICE",
      phone: "+14155550100",
      template_name: "order_update",
      template_language: "en",
      template_values: `first_name=Ana\n${"x".repeat(1_000_000)}`,
    });
    expect(run.error).toMatch(/^Input template_values, line 2: "x{40}…" is not key=value/);
    expect(run.error?.length).toBeLessThan(200);
    expect((await new StepRunStore(stack.db, stack.workspace).get(run.id))?.error).toBe(run.error);
    const actor = await wf.run("look_up_contact", { actor: `U${"\u0000".repeat(5)}${"A".repeat(5000)}` });
    expect(actor.error?.length).toBeLessThan(300);
    expect(actor.error).not.toMatch(LONE);
    expect(actor.error).not.toContain("\u0000");
  });

  it("a NUL in a contact's name: the change, its audit row and the step's answer", async () => {
    const run = await wf.run("upsert_contact", {
      actor: "U0ALICE",
      phone: "+14155550199",
      first_name: "Marker Nulname",
    });
    expect(run.outputs).toMatchObject({ created: true });
    expect(await new StepRunStore(stack.db, stack.workspace).get(run.id)).toMatchObject({ state: "done" });
    const audit = (await new AuditLog(stack.db, stack.workspace).list({ limit: 1000 })).filter((e) =>
      e.command.includes(run.id),
    );
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0]?.answer)).toContain("Ana\uFFFDMaria");
  });

  it("a step a crash left running: ended at start with functions.completeError in words; a redelivery repeats them", async () => {
    // The earlier process claimed these runs, then died before telling Slack.
    const send = stack.fake.executeFunction("send_message", {
      actor: "U0ALICE",
      phone: "+14155550123",
    }).execution;
    const look = stack.fake.executeFunction("look_up_contact", { email: "a@b.co" }).execution;
    for (const e of [send, look])
      expect(
        await new StepRunStore(stack.db, stack.workspace).claim({
          executionId: e.id,
          callbackId: e.callbackId,
          actor: "U0ALICE",
        }),
      ).toBe(true);
    // Younger than the grace: left to a live replica.
    expect(
      await settleInterruptedSteps(
        await workFor(stack.slack.services, stack.workspace),
        stack.slack.client,
        STEPS,
        60_000,
      ),
    ).toBe(0);
    expect(
      await settleInterruptedSteps(
        await workFor(stack.slack.services, stack.workspace),
        stack.slack.client,
        STEPS,
        0,
      ),
    ).toBe(2);
    expect(send.state).toBe("failed");
    expect(send.error).toMatch(
      /^Switchboard restarted during this step, so whether its change was made is not known/,
    );
    expect(send.error).toMatch(/before running this workflow again/);
    expect(look.state).toBe("failed");
    expect(look.error).toMatch(/restarted during this step; it changes nothing/);
    expect(await new StepRunStore(stack.db, stack.workspace).get(send.id)).toMatchObject({
      state: "failed",
      error: send.error,
    });
    // Slack delivers it again: the same words, nothing run.
    const sends = stack.fake.callsOf("functions.completeError").length;
    const again = await stack.req.functionExecuted("send_message", {}, { execution: send, retryNum: 1 });
    expect(again.status).toBe(200);
    expect(stack.fake.callsOf("functions.completeError").length).toBeLessThanOrEqual(sends + 1);
    expect(
      await settleInterruptedSteps(
        await workFor(stack.slack.services, stack.workspace),
        stack.slack.client,
        STEPS,
        0,
      ),
    ).toBe(0);
  });
});
