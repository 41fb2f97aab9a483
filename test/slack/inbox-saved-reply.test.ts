// Saved replies from an inbox card (issue 29 §1), end to end on real parts:
// the sandbox, the fake Slack, the Bolt app and the poller stepped by hand on
// a hand-moved clock. "Saved reply…" opens a modal: the replies searched as
// you type (this inbox's and every inbox's, not another inbox's), the one
// chosen filled for this customer, a placeholder the record has no value for
// refused until it is filled, then sent once however often Send is clicked,
// the writer named in the thread and the message shown as sent by them.
// Outside the 24-hour window the modal offers the approved templates, filled
// the same way. The message shortcut opens the same modal from the thread.

import { beforeAll, describe, expect, it } from "vitest";
import { TEMPLATES_FRESH_MS, TemplateTexts } from "../../src/inbox/templates.ts";
import { firstConversation, followThread, useInboxStack } from "../helpers/inbox.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";
import { Forms } from "./forms-harness.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const INBOX = "C0SAVED";
const clock = manualClock();

let forms: Forms;
let user = 0;
let threadTs = "";

const t = useInboxStack({
  channels: [{ id: INBOX, name: "saved", is_member: true }],
  users: [ALICE],
  clock,
  redraw: true,
});

beforeAll(async () => {
  forms = new Forms(t.s.req, t.s.fake, ALICE);
}, 120_000);

const { customerWrites, card, inThread } = followThread(t, ALICE, () => ({ user, threadTs }));
const who = { userId: ALICE.id, via: "slack" as const, channelId: INBOX };

/** The customer's outgoing messages not in `before` (by id). */
const newSince = (all: Rec[], before: Rec[]) => all.filter((m) => !before.some((b) => b.id === m.id));

async function outbound(): Promise<Rec[]> {
  return (await t.parts.messagesOf(user)).filter((m) => m.direction === "outbound");
}

/** Opens the saved-reply modal (`open`) and waits for the form that replaces the waiting modal; its id. */
async function savedReplyForm(open: () => Promise<unknown>): Promise<string> {
  const before = t.s.fake.callsOf("views.open").length;
  await open();
  const call = await t.s.fake.waitFor(() =>
    t.s.fake
      .callsOf("views.open")
      .slice(before)
      .find((c) => c.response.ok),
  );
  const id = (call.response.view as Rec).id as string;
  await t.s.fake.waitFor(() => forms.view(id).view.callback_id === "sb_saved_reply_form");
  return id;
}

/** Clicks the card's "Saved reply…" and waits for the form that replaces the waiting modal. */
const openFromCard = () =>
  savedReplyForm(() =>
    t.s.req.blockAction(
      { action_id: "sb_inbox_saved", value: String(user) },
      {
        user: ALICE,
        channelId: INBOX,
        messageTs: threadTs,
        message: { text: card().text, blocks: card().blocks },
      },
    ),
  );

const blocksOf = (id: string) => forms.view(id).view.blocks as Rec[];
const textBlockId = (id: string) => blocksOf(id).find((b) => /^text_\d+$/.test(String(b.block_id)))?.block_id;

describe("saved replies from the inbox card", { timeout: 120_000 }, () => {
  it("searched as you type, this inbox's and every inbox's", async () => {
    const first = await firstConversation(t, ALICE, "Where is my order?");
    expect(first.polled).toMatchObject({ threads: 1 });
    ({ user, threadTs } = first);
    expect(JSON.stringify(card().blocks)).toContain("sb_inbox_saved");

    expect(
      (await t.s.core.run("reply add order Hi {first_name|there}, order {order_id} ships today.", who)).text,
    ).toMatch(/added/);
    expect(
      (await t.s.core.run(`reply add thanks <#${INBOX}|saved> Thank you {first_name|there}!`, who)).text,
    ).toMatch(/added/);
    expect((await t.store.inbox(INBOX))?.channel).toBe(INBOX);
    // A reply of another inbox is not offered here.
    await t.s.switchboard.inbox.savedReplies.add(
      "order elsewhere",
      "Elsewhere",
      ALICE.id,
      new Date(),
      "C0ELSE",
    );
    expect((await t.s.core.run("reply add x <#C0NONE|none> text", who)).text).toMatch(/has no inbox/);

    const id = await openFromCard();
    // Send before a choice: refused at the field.
    expect((await forms.submit(id)).errors?.pick).toMatch(/Choose a saved reply/);
    const all = (await forms.suggest(id, "pick", "")).map((o) => o.value);
    expect(all).toEqual(["order", "thanks"]);
    expect((await forms.suggest(id, "pick", "ORD")).map((o) => o.value)).toEqual(["order"]);
    expect((await forms.suggest(id, "pick", "thank you")).map((o) => o.value)).toEqual(["thanks"]);
  });

  it("filled for this customer; a placeholder with no value refused until it is filled; sent once", async () => {
    const id = await openFromCard();
    await forms.act(id, "pick", { pick: "order" });
    const block = textBlockId(id) as string;
    const shown = blocksOf(id).find((b) => b.block_id === block)?.element.initial_value as string;
    const u = await t.s.client.getChatUser(user);
    const first = String(u.name ?? "").split(" ")[0];
    expect(shown).toBe(`Hi ${first}, order {order_id} ships today.`);
    expect(JSON.stringify(blocksOf(id))).toContain("has no value for `{order_id}`");

    const refused = await forms.submit(id);
    expect(refused.response_action).toBe("errors");
    expect(refused.errors[block]).toMatch(/Fill in \{order_id\}/);
    const before = await outbound();

    const text = `Hi ${first}, order A-7 ships today.`;
    // Two clicks on Send (the same submission twice), and a third with other values: one send.
    const answers = await Promise.all([
      forms.submit(id, { [block]: text }),
      forms.submit(id, { [block]: text }),
    ]);
    expect(answers.some((a) => Object.keys(a).length === 0)).toBe(true);
    await forms.submit(id, { [block]: `${text} Again.` });
    await t.s.fake.waitFor(() =>
      inThread().find((m) => String(m.text).includes(`Saved reply *order* sent to`)),
    );
    const sent = newSince(await outbound(), before);
    expect(sent.map((m) => m.text)).toEqual([text]);
    expect(inThread().filter((m) => String(m.text).includes("Saved reply *order* sent to")).length).toBe(1);
    expect(String(inThread().find((m) => String(m.text).includes("sent to"))?.text)).toContain(
      `by <@${ALICE.id}>`,
    );

    // The poller shows it as sent by Alice with Switchboard, not as from elsewhere.
    await customerWrites("Great, thanks");
    await t.runtime.poller.step();
    const shownSent = inThread().find((m) => JSON.stringify(m.blocks).includes("order A-7 ships today"));
    expect(JSON.stringify(shownSent?.blocks)).toContain(`Sent by <@${ALICE.id}> with Switchboard`);
  });

  it("the message shortcut in the thread opens the same modal", async () => {
    const id = await savedReplyForm(() =>
      t.s.req.shortcut("sb_saved_reply", {
        user: ALICE,
        channelId: INBOX,
        message: { text: "Where is my order?", ts: threadTs },
      }),
    );
    expect(JSON.stringify(blocksOf(id))).toContain("Search saved replies");
  });

  it("outside the 24-hour window: the approved templates instead, filled the same way", async () => {
    clock.advance(25 * 3_600_000);
    await t.runtime.poller.step();
    expect(JSON.stringify(card().blocks)).toContain("Window closed");
    const id = await openFromCard();
    expect(forms.view(id).view.title.text).toBe("Send a template");
    expect(JSON.stringify(blocksOf(id))).not.toContain("Search saved replies");
    await forms.act(id, "template", { template: "order_update" });
    const inputs = blocksOf(id).filter((b) => /^p_\d+_/.test(String(b.block_id)));
    // A placeholder's label is its name in words, the template's line it fills its hint (issue 39 §2).
    expect(inputs.map((b) => b.label.text)).toEqual(["First name", "Order ID"]);
    expect(inputs[1]?.hint?.text).toContain("Hi …, your order [Order ID] is on its way.");
    // The template quoted above them reads in words too: "[First name]", never "{{first_name}}".
    const quoted = JSON.stringify(blocksOf(id).filter((b) => b.type === "section"));
    expect(quoted).toContain("[First name]");
    expect(quoted).not.toMatch(/\{\{/);
    const u = await t.s.client.getChatUser(user);
    expect(inputs[0]?.element.initial_value).toBe(String(u.name ?? "").split(" ")[0]);
    const orderBlock = inputs[1]?.block_id as string;
    const refused = await forms.submit(id);
    expect(refused.errors[orderBlock]).toMatch(/Fill in Order ID/);
    const before = await outbound();
    expect(await forms.submit(id, { [orderBlock]: "A-8" })).toEqual({});
    await t.s.fake.waitFor(() =>
      inThread().find((m) => String(m.text).includes("Template *order_update* sent to")),
    );
    const sent = newSince(await outbound(), before);
    expect(sent.length).toBe(1);
    expect(sent[0]?.type).toBe("template");

    // Mirrored into the thread as the customer read it, placeholders filled (issue 39 §2), not "(template message)":
    // the record as an API gives it that keeps only the template's name and values (the sandbox keeps the text too).
    await t.s.sandbox.db.query("update sandbox.messages set text = null where id = $1", [sent[0]?.id]);
    const posted = inThread().length;
    await t.runtime.poller.step();
    const mirrored = inThread().slice(posted);
    const shown = mirrored.map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`).join("\n");
    expect(shown).toContain("your order A-8 is on its way");
    expect(shown).not.toMatch(/template message|\{\{/);
  });

  it("a template message's text: the templates read once for many messages, again only after a while", async () => {
    let reads = 0;
    let now = clock.now().getTime();
    const texts = new TemplateTexts({
      client: t.s.client,
      now: () => new Date(now),
      read: <T>(p: Promise<T>) => {
        reads++;
        return p;
      },
    });
    const message = (parameters: Record<string, string>) => ({
      id: 1,
      type: "template",
      template: { name: "order_update", language: "en", parameters },
    });
    const one = await texts.shown(message({ first_name: "Ana", order_id: "A-1" }));
    const two = await texts.shown(message({ first_name: "Bo", order_id: "B-2" }));
    expect([one.text, two.text]).toEqual([
      "Hi Ana, your order A-1 is on its way.",
      "Hi Bo, your order B-2 is on its way.",
    ]);
    // A text message, or a template message with its own text, reads nothing.
    await texts.shown({ id: 2, type: "text", text: "hello" });
    expect(reads).toBe(1);
    // A name not in the list: read again at most once a minute.
    await texts.shown({ ...message({}), template: { name: "nosuch", language: "en" } });
    await texts.shown({ ...message({}), template: { name: "nosuch", language: "en" } });
    expect(reads).toBe(1);
    now += TEMPLATES_FRESH_MS;
    await texts.shown(message({ first_name: "Cy", order_id: "C-3" }));
    expect(reads).toBe(2);
  });
});
