// The audit channel's line and the Home tab's line of each kind of write are a
// sentence of what the person did, naming the record (issue 33 / 39 §1): a
// click and a form are never "Typed", and their lines (`inbox resolve C0DESK 1`,
// `campaign 7 send at=2026-…T07:00:00.000Z`) are never shown; a line really
// typed keeps it beside the sentence; a conversation given to oneself was
// taken; a test names its campaign and phone. End to end: the fake Slack, the
// Bolt app, the core, the sandbox over HTTP, the inbox poller stepped by hand.
import { beforeAll, describe, expect, it } from "vitest";
import { TestPhones } from "../../src/store/campaigns.ts";
import type { RecordedCall } from "../fakes/slack.ts";
import { useInboxStack } from "../helpers/inbox.ts";
import { manualClock } from "../helpers/sandbox.ts";
import { Forms } from "./forms-harness.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const DESK = "C0DESK";
const GENERAL = "C0GENERAL";
const AUDIT = "C0AUDIT";
const clock = manualClock();

let forms: Forms;
let user = 0;
let customer = "";
let threadTs = "";

const t = useInboxStack({
  env: { AUDIT_CHANNEL: AUDIT, MESSAGING_CHANNEL_ID: "1" },
  channels: [
    { id: DESK, name: "desk", is_member: true },
    { id: GENERAL, name: "general", is_member: true },
    { id: AUDIT, name: "audit", is_member: true },
  ],
  users: [ALICE],
  home: { cacheMs: 0 },
  clock,
});

beforeAll(async () => {
  forms = new Forms(t.s.req, t.s.fake, ALICE);
  // A conversation's card in #desk: the inbox on, a customer writes, one poll.
  expect((await t.s.core.run(`inbox on ${DESK}`, { userId: ALICE.id, via: "shell" })).text).toMatch(
    /Inbox on/,
  );
  await t.runtime.poller.step();
  const page = await t.s.client.listChatUsers({ limit: 100 });
  user = Number(page.items.find((u) => u.type === "phonechat")?.id);
  await t.parts.customerWrites(user, "Where is my parcel?");
  await t.runtime.poller.step();
  const thread = await t.store.thread(DESK, user);
  threadTs = thread?.threadTs as string;
  customer = thread?.card?.name as string;
  expect(customer).toBeTruthy();
}, 120_000);

const shown = (m: { text?: string; blocks?: unknown }) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;

/** The audit channel's post whose sentence matches `sentence`, posted after `after` messages. */
const auditPost = (after: number, sentence: RegExp) =>
  t.s.fake.waitFor(
    () => t.s.fake.messages.slice(after).find((m) => m.channel === AUDIT && sentence.test(String(m.text))),
    15_000,
    `the audit post ${sentence}`,
  );

/** The Home tab's "Recent changes" as Alice sees it now. */
async function homeChanges(): Promise<string> {
  const n = t.s.fake.callsOf("views.publish").length;
  await t.s.req.event({ type: "app_home_opened", user: ALICE.id, channel: "D0HOME", tab: "home" });
  const call: RecordedCall = await t.s.fake.waitFor(
    () =>
      t.s.fake
        .callsOf("views.publish")
        .slice(n)
        .find((c) => c.args.user_id === ALICE.id && JSON.stringify(c.args.view).includes("Recent changes")),
    15_000,
    "the Home tab",
  );
  const blocks = (call.args.view as { blocks: Array<{ text?: { text?: string } }> }).blocks;
  const recent = blocks.find((b) => b.text?.text?.startsWith("*Recent changes*"));
  return String(recent?.text?.text);
}

/** No command syntax, no ISO time, never "Typed". */
const NOT_TYPED = /Typed|inbox (resolve|assign)|send at=|\(form\)|\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** A click on the conversation's card, as Slack sends it. */
async function clickCard(action: {
  action_id: string;
  value?: string;
  selected_user?: string;
  block_id?: string;
}) {
  const card = t.s.fake.messages.find((m) => m.ts === threadTs);
  const r = await t.s.req.blockAction(action, {
    user: ALICE,
    channelId: DESK,
    messageTs: threadTs,
    message: { text: card?.text, blocks: card?.blocks },
  });
  await t.s.fake.waitFor(() => t.s.fake.responsesTo(r.responseUrl as string)[0]);
}

const addCampaign = async (name: string) => {
  const r = await t.s.core.run(`campaign add "${name}" template=1 group=1 first_name=Ana order_id=A-7`, {
    userId: ALICE.id,
    via: "shell",
  });
  const id = Number(/campaign #(\d+)/i.exec(r.text)?.[1]);
  expect(id, r.text).toBeGreaterThan(0);
  return id;
};

describe("audit lines, in the audit channel and on the Home tab", { timeout: 60_000 }, () => {
  it("a click: Alice's Resolve on the card reads as what she did, with the customer's name", async () => {
    const before = t.s.fake.messages.length;
    await clickCard({ action_id: "sb_inbox_resolve", value: String(user) });
    const sentence = `<@${ALICE.id}> resolved the conversation with *${customer}*`;
    const post = await auditPost(before, /resolved the conversation/);
    expect(post.text).toBe(`:white_check_mark: ${sentence}`);
    expect(shown(post)).toContain(`With a button in <#${DESK}>`);
    expect(shown(post)).not.toMatch(NOT_TYPED);
    const home = await homeChanges();
    expect(home).toContain(sentence);
    expect(home).not.toMatch(NOT_TYPED);
  });

  it("a conversation Alice gives to herself reads as taken", async () => {
    const before = t.s.fake.messages.length;
    await clickCard({
      action_id: "sb_inbox_assign",
      selected_user: ALICE.id,
      block_id: `sb_inbox_desk:${user}`,
    });
    const sentence = `<@${ALICE.id}> took the conversation with *${customer}*`;
    const post = await auditPost(before, /the conversation with/);
    expect(post.text).toBe(`:white_check_mark: ${sentence}`);
    expect(shown(post)).not.toMatch(NOT_TYPED);
    expect(await homeChanges()).toContain(sentence);
  });

  it("a form: the contact form's change names the contact, with a form, no line", async () => {
    const contact = (await t.s.client.listContacts({ limit: 1 })).items[0]!;
    const before = t.s.fake.messages.length;
    const v = await forms.open(`contact edit ${contact.id}`);
    expect(await forms.submit(v.id, { first_name: "Lucía", last_name: "Romero" })).toEqual({});
    const sentence = `<@${ALICE.id}> changed contact *Lucía Romero*`;
    const post = await auditPost(before, /changed contact/);
    expect(post.text).toBe(`:white_check_mark: ${sentence}`);
    expect(shown(post)).toContain(`With a form in <#${GENERAL}>`);
    expect(shown(post)).not.toMatch(NOT_TYPED);
    expect(shown(post)).not.toContain(`contact edit ${contact.id}`);
    expect(await homeChanges()).toContain(sentence);
  });

  it("a held start set with Send at…: the time as a Slack date, no ISO time, no line", async () => {
    const id = await addCampaign("Spring sale");
    const before = t.s.fake.messages.length;
    const modal = await forms.open(`campaign ${id} send-at`);
    const at = Math.floor(clock.now().getTime() / 1000) + 3 * 86_400;
    expect((await forms.submit(modal.id, { at: String(at) })).response_action).toBe("clear");
    const post = await auditPost(before, /to start at/);
    expect(post.text).toMatch(
      new RegExp(`^:white_check_mark: <@${ALICE.id}> set \\*Spring sale\\* to start at <!date\\^${at}\\^`),
    );
    expect(shown(post)).toContain("With a form");
    expect(shown(post)).not.toMatch(NOT_TYPED);
    expect(shown(post)).not.toContain(`campaign ${id}`);
    const home = await homeChanges();
    expect(home).toMatch(/set \*Spring sale\* to start at <!date\^/);
    expect(home).not.toMatch(NOT_TYPED);
  });

  it("a typed command keeps its typed line beside the sentence: a test names its campaign and phone", async () => {
    const id = await addCampaign("Summer test");
    // Her remembered test number: the test goes at once (a new number asks to confirm first, issue 37 §5).
    await new TestPhones(t.s.db, t.s.workspace).set(ALICE.id, "+34600111222");
    const before = t.s.fake.messages.length;
    const r = await t.s.req.command(`campaign ${id} test +34 600 111 222`, {
      user: ALICE,
      channelId: GENERAL,
    });
    await t.s.fake.waitFor(() => t.s.fake.responsesTo(r.responseUrl as string)[0]);
    // The phone as libphonenumber writes it internationally.
    const sentence = `<@${ALICE.id}> sent a test of *Summer test* to +34 600 11 12 22`;
    const post = await auditPost(before, /sent a test of/);
    expect(post.text).toBe(`:white_check_mark: ${sentence}`);
    expect(shown(post)).toContain(`Typed in <#${GENERAL}>: \`campaign ${id} test +34 600 111 222\``);
    expect(await homeChanges()).toContain(sentence);
  });

  it("a message not sent says to whom and why", async () => {
    const before = t.s.fake.messages.length;
    // A channel the account does not have: the API refuses the send.
    const r = await t.s.req.command(`send +34 600 111 222 "Hello" channel=99`, {
      user: ALICE,
      channelId: GENERAL,
    });
    await t.s.fake.waitFor(() => t.s.fake.responsesTo(r.responseUrl as string)[0]);
    const post = await auditPost(before, /message/);
    expect(post.text).toMatch(
      new RegExp(
        `^:x: <@${ALICE.id}> tried to send a message to \\+34 600 11 12 22: the messaging API refused it \\(.+\\)$`,
      ),
    );
    expect(post.text).not.toMatch(/tried: sent/);
  });
});
