// Edit… on a message sent later (issue 40 §2), in Slack: `/sb scheduled`'s
// button opens a modal with the message's text and time (the time in the
// workspace's zone); Save changes the timer under the version the form read,
// so a message being sent, sent, cancelled or edited meanwhile is said in the
// modal and nothing changes; an untouched Save writes nothing; a bad time or
// an empty text is a field error, the modal open. Only the writer or an admin
// may edit. Through Bolt, the fake Slack, the core, the store and the sandbox.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { laterSendsOf } from "../../src/commands/later-message.ts";
import { ACTION } from "../../src/commands/types.ts";
import { localText } from "../../src/domain/start-time.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { checkView } from "../fakes/block-kit.ts";
import type { SlackUserRef } from "../fakes/slack-requests.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Forms } from "./forms-harness.ts";
import { buttonsOf } from "./reports-harness.ts";

let stack: SlackStack;
const ALICE = { id: "U0ALICE", name: "alice" };
const BOB = { id: "U0BOB", name: "bob" };
const CARMEN = { id: "U0CARMEN", name: "carmen" };
const AUDIT = "C0AUDIT";
const TZ = "Europe/Madrid";

beforeAll(async () => {
  stack = await startStack({
    writers: [ALICE.id, BOB.id, CARMEN.id],
    env: { MESSAGING_CHANNEL_ID: "1", AUDIT_CHANNEL: AUDIT, REPORTS_TIME_ZONE: TZ },
    slack: {
      channels: [
        { id: "C0GENERAL", name: "general", is_member: true },
        { id: AUDIT, name: "audit", is_member: true },
      ],
      users: [
        { id: ALICE.id, name: ALICE.name },
        { id: BOB.id, name: BOB.name },
        { id: CARMEN.id, name: CARMEN.name, is_admin: true },
      ],
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const text = (blocks: unknown) => JSON.stringify(blocks ?? []);
const store = () => laterSendsOf(new WorkspaceStores(stack.db, stack.workspace));

let phones = 0;
/** `/sb send … at=` as Alice, confirmed: the message's number and its time (a whole minute, an hour or more away). */
async function setLater(words: string, hours = 1): Promise<{ n: number; at: Date }> {
  phones += 1;
  const phone = `+1415555${String(2400 + phones).padStart(4, "0")}`;
  await stack.sandbox.inbound({ phone, text: "hola" });
  const at = new Date((Math.floor(Date.now() / 60_000) + 60 * hours + 1) * 60_000);
  const ask = await stack.req.command(`send ${phone} ${words} at=${at.toISOString()}`, { user: ALICE });
  const prompt = await stack.fake.waitForResponse(ask.responseUrl as string);
  const confirm = buttonsOf(prompt.body.blocks).find((e) => e.action_id?.startsWith(ACTION.confirm))!;
  const before = stack.fake.responses.length;
  await stack.req.blockAction(
    { action_id: confirm.action_id!, value: confirm.value },
    { responseUrl: ask.responseUrl, user: ALICE },
  );
  const done = await stack.fake.waitFor(() =>
    stack.fake.responses
      .slice(before)
      .find((r) => /Message \d+ to .* will be sent at/.test(String(r.body.text))),
  );
  return { n: Number(/Message (\d+) to/.exec(String(done.body.text))![1]), at };
}

/** Edit… clicked on `/sb scheduled` as `user`: the modal it opened, or the answer when none opened. */
async function clickEdit(n: number, user: SlackUserRef = ALICE) {
  const list = await stack.req.command("scheduled", { user });
  const shown = await stack.fake.waitForResponse(list.responseUrl as string);
  // The list's own button; someone who does not see the message clicks the same button of another's list.
  const edit = buttonsOf(shown.body.blocks).find((e) => e.value === `scheduled edit ${n}`) ?? {
    action_id: `${ACTION.run}:${2 * n}`,
    value: `scheduled edit ${n}`,
  };
  const opened = stack.fake.callsOf("views.open").length;
  const answered = stack.fake.responses.length;
  await stack.req.blockAction(
    { action_id: edit.action_id!, value: edit.value },
    { responseUrl: list.responseUrl, user, channelId: "C0GENERAL" },
  );
  const got = await stack.fake.waitFor(
    () =>
      stack.fake
        .callsOf("views.open")
        .slice(opened)
        .find((c) => c.response.ok === true) ?? stack.fake.responses.slice(answered)[0],
  );
  if ("response" in got && (got.response as { view?: { id: string } }).view)
    return {
      view: new Forms(stack.req, stack.fake, user).view((got.response as { view: { id: string } }).view.id),
    };
  return { answer: String((got as { body: { text?: unknown } }).body.text) };
}

describe("Edit… on a message sent later", () => {
  it("opens a form with its text and time in the workspace's zone; Save changes both, audited and said", async () => {
    const { n, at } = await setLater("Hola desde Slack");
    const opened = await clickEdit(n);
    expect(opened.answer).toBeUndefined();
    const v = opened.view!;
    expect(checkView(v.view)).toEqual([]);
    const el = (id: string) => v.view.blocks.find((b: { block_id?: string }) => b.block_id === id)?.element;
    expect(el("text").initial_value).toBe("Hola desde Slack");
    expect(el("at").initial_value).toBe(localText(at, TZ));
    expect(text(v.view.blocks)).toContain("Madrid time");

    const later = new Date(at.getTime() + 2 * 3600_000);
    const forms = new Forms(stack.req, stack.fake, ALICE);
    const answer = await forms.submit(v.id, { text: "Hola, a las once", at: localText(later, TZ) });
    expect(answer.errors).toBeUndefined();
    const edited = (await store().get(n))!;
    expect(edited.payload.body.text).toBe("Hola, a las once");
    expect(edited.at.getTime()).toBe(later.getTime());
    expect(edited.state).toBe("waiting");
    const said = await stack.fake.waitFor(() =>
      stack.fake.messages.find(
        (m) => m.channel === "C0GENERAL" && String(m.text).startsWith(`Message ${n} to `),
      ),
    );
    expect(String(said.text)).toMatch(/will be sent at/);
    await stack.fake.waitFor(() =>
      stack.fake.messages.find(
        (m) =>
          m.channel === AUDIT && /<@U0ALICE> changed the message to .* to be sent at/.test(String(m.text)),
      ),
    );
  });

  it("an untouched Save writes nothing; a bad time, a past one or an empty text is a field error, nothing changed", async () => {
    const { n } = await setLater("Sin cambios");
    const before = (await store().get(n))!;
    const forms = new Forms(stack.req, stack.fake, ALICE);
    const v = (await clickEdit(n)).view!;

    const untouched = await forms.submit(v.id, {});
    expect(untouched.response_action).toBe("update");
    expect(text(untouched.view.blocks)).toContain("nothing changed");
    expect((await store().get(n))!.version).toBe(before.version);

    const v2 = (await clickEdit(n)).view!;
    const missing = await forms.submit(v2.id, { at: "2027-02-30 09:00" });
    expect(missing.response_action).toBe("errors");
    expect(missing.errors.at).toMatch(/^This time is not a date that exists: February 2027 has 28 days/);
    const past = await forms.submit(v2.id, { at: localText(new Date(Date.now() - 3600_000), TZ) });
    expect(past.errors.at).toBe("This time is in the past: choose a later one");
    const gibberish = await forms.submit(v2.id, { at: "tomorrow-ish" });
    expect(gibberish.errors.at).toMatch(/^This time is not a time: give 09:00/);
    const empty = await forms.submit(v2.id, { text: "   " });
    expect(empty.errors.text).toMatch(/cannot be empty/);
    const after = (await store().get(n))!;
    expect(after.version).toBe(before.version);
    expect(after.payload.body.text).toBe("Sin cambios");
  });

  it("being sent, cancelled or edited meanwhile: said in the modal in words, nothing changed", async () => {
    const forms = new Forms(stack.req, stack.fake, ALICE);

    const running = await setLater("Ya sale");
    const v1 = (await clickEdit(running.n)).view!;
    const claimed = await store().move(running.n, ["waiting"], "running", new Date(), { claimedBy: "other" });
    expect(claimed).toBeDefined();
    const a1 = await forms.submit(v1.id, { text: "Demasiado tarde" });
    expect(a1.response_action).toBe("update");
    expect(text(a1.view.blocks)).toContain(
      "is no longer waiting: it is being sent now. Nothing was changed.",
    );
    expect((await store().get(running.n))!.payload.body.text).toBe("Ya sale");

    const cancelled = await setLater("Cancelado");
    const v2 = (await clickEdit(cancelled.n)).view!;
    await stack.core.run(`scheduled cancel ${cancelled.n}`, { userId: ALICE.id, via: "slack" });
    const a2 = await forms.submit(v2.id, { text: "Otro" });
    expect(text(a2.view.blocks)).toContain("it was cancelled by <@U0ALICE>");
    expect((await store().get(cancelled.n))!.state).toBe("cancelled");

    const edited = await setLater("Primero");
    const v3 = (await clickEdit(edited.n)).view!;
    await stack.core.run(`scheduled edit ${edited.n} text="Segundo"`, { userId: ALICE.id, via: "slack" });
    const a3 = await forms.submit(v3.id, { text: "Tercero" });
    expect(text(a3.view.blocks)).toContain("was changed by someone else while this form was open");
    expect((await store().get(edited.n))!.payload.body.text).toBe("Segundo");
  });

  it("only its writer or an admin: Bob's Edit… and Save refused in words, Carmen (an admin) may", async () => {
    const { n } = await setLater("De Alice");
    const bob = await clickEdit(n, BOB);
    expect(bob.view).toBeUndefined();
    expect(bob.answer).toContain(`There is no message ${n} waiting`);

    // Alice's form submitted as Bob: refused at the field, nothing changed.
    const v = (await clickEdit(n)).view!;
    const refused = await new Forms(stack.req, stack.fake, BOB).submit(v.id, { text: "De Bob" });
    expect(refused.response_action).toBe("errors");
    expect(refused.errors.text).toMatch(/Only the person who set message \d+, or an admin, may change it/);
    expect((await store().get(n))!.payload.body.text).toBe("De Alice");

    const carmen = await clickEdit(n, CARMEN);
    const saved = await new Forms(stack.req, stack.fake, CARMEN).submit(carmen.view!.id, {
      text: "De Carmen",
    });
    expect(saved.errors).toBeUndefined();
    expect((await store().get(n))!.payload.body.text).toBe("De Carmen");
  });
});
