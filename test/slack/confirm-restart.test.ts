// kill -9 during a Confirm or a slash command (issue 21 §3). A Confirm left "working on it…"
// and the confirmation `running`. At the next start it is settled unknown and
// the person who clicked is told, with a button that checks the campaign: on
// that very message while the click's response_url is good (30 minutes), else
// by DM. Once, whichever replica gets there first.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workFor } from "../../src/slack/context.ts";
import { tellInterruptedConfirmations } from "../../src/slack/recovery/confirm-notices.ts";
import { interruptedText, tellInterruptedCommands } from "../../src/slack/recovery/interrupted-commands.ts";
import { Confirmations } from "../../src/store/confirmations.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Forms, randomName, templateEntries } from "./forms-harness.ts";

let stack: SlackStack;

/** Waits until the stack's running command is noted in the store. */
async function noted(s: SlackStack): Promise<void> {
  const count = async () =>
    Number(
      (await s.db.query<{ n: number }>("select count(*)::int as n from switchboard.commands_in_flight"))
        .rows[0]?.n,
    );
  for (let i = 0; i < 200 && (await count()) === 0; i++) await new Promise((r) => setTimeout(r, 25));
  expect(await count()).toBeGreaterThan(0);
}

beforeAll(async () => {
  stack = await startStack({ slack: {} });
}, 60_000);
afterAll(() => stack?.close());

/** A Confirm clicked `minutesAgo`, whose process was then killed: left running. */
async function interrupted(campaignId: number, minutesAgo: number) {
  const c = await new Confirmations(stack.db, stack.workspace).create({
    actor: "U0ALICE",
    command: { id: "campaign.send", raw: { id: campaignId }, line: `campaign ${campaignId} send` },
    ttlMs: 15 * 60_000,
  });
  const responseUrl = stack.fake.newResponseUrl();
  await new Confirmations(stack.db, stack.workspace).keepReplyTarget(c.id, {
    user: "U0ALICE",
    responseUrl,
    at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
  });
  expect(await new Confirmations(stack.db, stack.workspace).claim(c.id, "U0ALICE")).toBeTruthy();
  return responseUrl;
}

type Block = { type: string; elements?: Array<{ value?: string; text?: { text?: string } }> };
const buttons = (blocks: unknown) =>
  ((blocks as Block[] | undefined) ?? []).flatMap((b) => (b.type === "actions" ? (b.elements ?? []) : []));

describe("a Confirm interrupted by kill -9", () => {
  it("is told at the next start: on its message while the response_url lasts, else by DM, with a check, once", async () => {
    const recent = await interrupted(7, 5);
    const old = await interrupted(8, 45);
    // The next start: settled unknown (src/host/app.ts), then the Slack app tells.
    expect(await new Confirmations(stack.db, stack.workspace).settleInterrupted()).toBe(2);
    const dmsBefore = stack.fake
      .callsOf("chat.postMessage")
      .filter((c) => c.args.channel === "U0ALICE").length;
    expect(
      await tellInterruptedConfirmations(
        await workFor(stack.slack.services, stack.workspace),
        stack.slack.client,
      ),
    ).toBe(2);

    const onMessage = await stack.fake.waitForResponse(recent);
    expect(onMessage.body.replace_original).toBe(true);
    expect(String(onMessage.body.text)).toMatch(/Switchboard stopped while carrying it out/);
    expect(String(onMessage.body.text)).toMatch(/outcome is unknown/);
    expect(buttons(onMessage.body.blocks).map((b) => b.value)).toEqual(["campaign 7"]);

    expect(stack.fake.responsesTo(old)).toEqual([]);
    const dms = stack.fake.callsOf("chat.postMessage").filter((c) => c.args.channel === "U0ALICE");
    expect(dms).toHaveLength(dmsBefore + 1);
    expect(String(dms.at(-1)?.args.text)).toMatch(/Switchboard stopped while carrying it out/);
    expect(buttons(dms.at(-1)?.args.blocks).map((b) => b.value)).toEqual(["campaign 8"]);

    // Another replica starting, or this one again: nobody is told twice.
    expect(
      await tellInterruptedConfirmations(
        await workFor(stack.slack.services, stack.workspace),
        stack.slack.client,
      ),
    ).toBe(0);
    expect(stack.fake.responsesTo(recent)).toHaveLength(1);
  });
});

describe("a slash command interrupted by kill -9", () => {
  it("is told at the next start on its response_url, once", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const s = await startStack({
      slack: {},
      proxy: { hold: (method, url) => (method === "GET" && url.includes("/campaigns") ? held : undefined) },
    });
    try {
      const sent = await s.req.command("report now 1");
      expect(sent.status).toBe(200);
      for (let i = 0; i < 400 && !s.proxy?.seen.some((x) => x.includes("/campaigns")); i++)
        await new Promise((r) => setTimeout(r, 50));
      // A command still running is noted (the embedded database writes its note NOTE_AFTER_MS after the ack).
      await noted(s);
      // The process is "killed" here: its row stays. The next start (another process) tells the person.
      expect(
        await tellInterruptedCommands(await workFor(s.slack.services, s.workspace), s.slack.client, {
          self: "the next process",
          olderThanMs: 0,
          // Killed: its heartbeat (PostgreSQL) no longer counts.
          liveWithinMs: undefined,
        }),
      ).toBe(1);
      const told = await s.fake.waitForResponse(sent.responseUrl as string);
      expect(told.body.text).toBe(interruptedText("report now 1"));
      expect(told.body.text).toMatch(/restarted while carrying out `\/sb report now 1`/);
      expect(
        await tellInterruptedCommands(await workFor(s.slack.services, s.workspace), s.slack.client, {
          self: "the next process",
          olderThanMs: 0,
          // Killed: its heartbeat (PostgreSQL) no longer counts.
          liveWithinMs: undefined,
        }),
      ).toBe(0);
      // A command that answers leaves nothing behind.
      release();
      await s.fake.waitForResponse(sent.responseUrl as string, 2, 30_000);
      const help = await s.req.command("help");
      await s.fake.waitForResponse(help.responseUrl as string);
      const left = async () =>
        Number(
          (await s.db.query<{ n: number }>("select count(*)::int as n from switchboard.commands_in_flight"))
            .rows[0]?.n,
        );
      for (let i = 0; i < 200 && (await left()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await left()).toBe(0);
    } finally {
      release();
      await s.close();
    }
  }, 90_000);
});

describe("a form submission interrupted by kill -9", () => {
  it("is told at the next start by DM, once: its outcome is not known", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const s = await startStack({
      writers: ["U0ALICE"],
      slack: {},
      proxy: { hold: (method, url) => (method === "POST" && url.includes("/templates") ? held : undefined) },
    });
    try {
      const alice = new Forms(s.req, s.fake);
      const v = await alice.open("template new");
      await alice.act(v.id, "body", { body: "Hi {{name}}" });
      const submitting = alice.submit(v.id, templateEntries(randomName("Killed").replace(/ /g, "_")));
      for (
        let i = 0;
        i < 400 && !s.proxy?.seen.some((x) => x.startsWith("POST") && x.includes("/templates"));
        i++
      )
        await new Promise((r) => setTimeout(r, 50));
      expect(s.proxy?.seen.some((x) => x.startsWith("POST") && x.includes("/templates"))).toBe(true);
      await noted(s);
      // The process is "killed" while the API holds the write: the next start tells Alice.
      const tell = async () =>
        tellInterruptedCommands(await workFor(s.slack.services, s.workspace), s.slack.client, {
          self: "the next process",
          olderThanMs: 0,
          // Killed: its heartbeat (PostgreSQL) no longer counts.
          liveWithinMs: undefined,
        });
      expect(await tell()).toBe(1);
      const dm = await s.fake.waitFor(
        () => s.fake.messages.find((m) => m.channel === "U0ALICE" && /restarted while/.test(m.text ?? "")),
        15_000,
        "the DM about the interrupted form",
      );
      expect(dm.text).toMatch(/the form \*New template\* you submitted/);
      expect(dm.text).toMatch(/may or may not have been made/);
      expect(dm.text).not.toContain("/sb");
      expect(dm.text?.includes("\u001e")).toBe(false);
      expect(await tell()).toBe(0);
      release();
      await submitting;
    } finally {
      release();
      await s.close();
    }
  }, 90_000);
});
