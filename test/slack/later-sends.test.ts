// A message sent later, in Slack (issue 40 §2): `/sb send … at=` asks to
// confirm, Confirm sets it; `/sb scheduled` lists it with Edit… and Cancel;
// the app's runner (its clock the test's) sends it as the writer, said in the
// audit channel, or, the 24-hour window closed, sends nothing and tells the
// writer by DM with the templates offered. Through Bolt, the fake Slack, the
// core and the sandbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { laterSendsOf } from "../../src/commands/later-message.ts";
import { ACTION } from "../../src/commands/types.ts";
import { createLaterSends } from "../../src/slack/features/later-sends/runtime.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { checkMessageBlocks, checkView } from "../fakes/block-kit.ts";
import { eventually } from "../helpers/eventually.ts";
import type { SlackStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { ALICE, AUDIT, startAuditedStack } from "../helpers/timers.ts";
import { Forms } from "./forms-harness.ts";

let stack: SlackStack;

beforeAll(async () => {
  stack = await startAuditedStack();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const text = (blocks: unknown) => JSON.stringify(blocks ?? []);
type Element = { action_id?: string; value?: string; text?: { text?: string } };
const buttonsOf = (blocks: unknown): Element[] =>
  (blocks as Array<{ elements?: Element[] }>).flatMap((b) => b.elements ?? []);

/** `/sb send … at=` as Alice, confirmed with the prompt's button: the message's number. */
async function setLater(line: string): Promise<number> {
  const ask = await stack.req.command(line, { user: ALICE });
  const prompt = await stack.fake.waitForResponse(ask.responseUrl as string);
  expect(text(prompt.body.blocks)).toContain("Sends *");
  const confirm = buttonsOf(prompt.body.blocks).find((e) => e.action_id?.startsWith(ACTION.confirm));
  expect(confirm?.text?.text).toMatch(/^Send at /);
  const before = stack.fake.responses.length;
  await stack.req.blockAction(
    { action_id: confirm!.action_id!, value: confirm!.value },
    { responseUrl: ask.responseUrl, user: ALICE },
  );
  const done = await stack.fake.waitFor(() =>
    stack.fake.responses
      .slice(before)
      .find((r) => /Message \d+ to .* will be sent at/.test(String(r.body.text))),
  );
  return Number(/Message (\d+) to/.exec(String(done.body.text))![1]);
}

/** The app's runner, its clock at `at`. */
const runnerAt = (at: Date) =>
  createLaterSends({
    db: stack.db,
    logger: stack.logger,
    forWorkspace: async () => ({ core: stack.switchboard.core, bridge: stack.switchboard.slack }),
    now: () => at,
  });

describe("a message sent later, in Slack", () => {
  it("set with Confirm, listed with Edit… and Cancel, sent at its time as the writer, said in the audit channel", async () => {
    const phone = "+14155550188";
    await stack.sandbox.inbound({ phone, text: "hola" });
    const at = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    const n = await setLater(`send ${phone} Hola desde Slack at=${at.toISOString()}`);

    const list = await stack.req.command("scheduled", { user: ALICE });
    const shown = await stack.fake.waitForResponse(list.responseUrl as string);
    expect(checkMessageBlocks(shown.body.blocks)).toEqual([]);
    expect(text(shown.body.blocks)).toContain("Hola desde Slack");
    const values = buttonsOf(shown.body.blocks).map((e) => e.value);
    expect(values).toContain(`scheduled edit ${n}`);
    expect(values).toContain(`scheduled cancel ${n}`);

    expect(await runnerAt(new Date(at.getTime() - 1000)).pass()).toEqual([]);
    expect(await runnerAt(new Date(at.getTime() + 1000)).pass()).toEqual(["sent"]);
    const said = await stack.fake.waitFor(() =>
      stack.fake.messages.find(
        (m) => m.channel === AUDIT && /<@U0ALICE>'s message to .* was sent \(set at/.test(String(m.text)),
      ),
    );
    expect(said).toBeDefined();
    expect((await laterSendsOf(new WorkspaceStores(stack.db, stack.workspace)).get(n))?.state).toBe("done");
  });

  it("Cancel on the list: not sent", async () => {
    const phone = "+14155550189";
    await stack.sandbox.inbound({ phone, text: "hola" });
    const at = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    const n = await setLater(`send ${phone} Nunca at=${at.toISOString()}`);
    const list = await stack.req.command("scheduled", { user: ALICE });
    const shown = await stack.fake.waitForResponse(list.responseUrl as string);
    const cancel = buttonsOf(shown.body.blocks).find((e) => e.value === `scheduled cancel ${n}`)!;
    await stack.req.blockAction(
      { action_id: cancel.action_id!, value: cancel.value },
      { responseUrl: list.responseUrl, user: ALICE, channelId: "C0GENERAL" },
    );
    await stack.fake.waitFor(() =>
      stack.fake.responses.find(
        (r) => String(r.body.text).includes(`Message ${n} to`) && /cancelled/.test(String(r.body.text)),
      ),
    );
    expect(await runnerAt(new Date(at.getTime() + 1000)).pass()).toEqual([]);
    expect((await laterSendsOf(new WorkspaceStores(stack.db, stack.workspace)).get(n))?.state).toBe(
      "cancelled",
    );
  });

  it("the 24-hour window closed at the time: nothing sent, the writer told by DM with the templates offered", async () => {
    const phone = "+14155550190"; // never wrote
    const at = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    const n = await setLater(`send ${phone} Demasiado tarde at=${at.toISOString()}`);
    expect(await runnerAt(new Date(at.getTime() + 1000)).pass()).toEqual(["window"]);
    const dm = await stack.fake.waitFor(() =>
      stack.fake.messages.find((m) => m.channel === "U0ALICE" && /was not sent/.test(String(m.text))),
    );
    expect(checkMessageBlocks(dm.blocks)).toEqual([]);
    expect(String(dm.text)).toContain("Demasiado tarde");
    expect(buttonsOf(dm.blocks).map((e) => e.value)).toEqual([`send ${phone}`, "templates status=approved"]);
    expect((await laterSendsOf(new WorkspaceStores(stack.db, stack.workspace)).get(n))?.state).toBe("failed");
  });

  it("Send at… in the message form: refused in the past, set for its time, not sent before it, then once", async () => {
    const forms = new Forms(stack.req, stack.fake);
    const phone = "+14155550191";
    await stack.sandbox.inbound({ phone, text: "hola" });
    const at = Math.floor(Date.now() / 1000) + 3600;
    const v = await forms.open("send");
    expect(checkView(v.view)).toEqual([]);
    const past = await forms.submit(v.id, {
      to: phone,
      text: "Desde el formulario",
      when: String(at - 7200),
    });
    expect(past.errors.when).toMatch(/in the past/);
    const answer = await forms.submit(v.id, { to: phone, text: "Desde el formulario", when: String(at) });
    expect(answer.errors).toBeUndefined();
    const store = laterSendsOf(new WorkspaceStores(stack.db, stack.workspace));
    const set = await eventually(
      async () => (await store.waiting("U0ALICE")).find((s) => s.payload.body.text === "Desde el formulario"),
      "set from the form",
    );
    expect(set?.at.getTime()).toBe(at * 1000);
    expect(await runnerAt(new Date(at * 1000 - 1000)).pass()).toEqual([]);
    expect(await runnerAt(new Date(at * 1000 + 1000)).pass()).toEqual(["sent"]);
    expect(await runnerAt(new Date(at * 1000 + 2000)).pass()).toEqual([]);
    expect((await store.get(set!.number))?.state).toBe("done");
  });

  it("Reply on an inbox card opens the message form with Send at…: set for the chat user, sent once at its time", async () => {
    const forms = new Forms(stack.req, stack.fake);
    const wrote = await stack.sandbox.inbound({ phone: "+14155550192", text: "¿Abren mañana?" });
    const before = stack.fake.callsOf("views.open").length;
    await stack.req.blockAction(
      { action_id: ACTION.inboxReply, value: String(wrote.chatUserId) },
      { user: ALICE, channelId: "C0GENERAL" },
    );
    const call = await stack.fake.waitFor(() =>
      stack.fake
        .callsOf("views.open")
        .slice(before)
        .find((c) => c.response.ok === true),
    );
    const v = forms.view((call.response.view as { id: string }).id);
    expect(text(v.view.blocks)).toContain('"block_id":"when"');
    const at = Math.floor(Date.now() / 1000) + 7200;
    const answer = await forms.submit(v.id, { text: "Sí, de 9 a 18", when: String(at) });
    expect(answer.errors).toBeUndefined();
    const store = laterSendsOf(new WorkspaceStores(stack.db, stack.workspace));
    const set = await eventually(
      async () => (await store.waiting("U0ALICE")).find((s) => s.payload.body.text === "Sí, de 9 a 18"),
      "set from the card's Reply",
    );
    expect(set.payload.ref).toBe(`user:${wrote.chatUserId}`);
    expect(await runnerAt(new Date(at * 1000 + 1000)).pass()).toEqual(["sent"]);
    expect((await store.get(set.number))?.state).toBe("done");
  });
});

itLeavesBUntouched(() => stack);
