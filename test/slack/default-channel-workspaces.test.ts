// Each workspace's default messaging channel is its own (issue 38 §4): in
// many-workspace mode a Workflow step with no channel, an inbox reply whose
// card does not know the conversation's channel, the card's Reply form and
// the campaign form rebuilt after a choice all use the workspace's setting
// (`/sb settings set channel=…`), never the deployment's MESSAGING_CHANNEL_ID,
// which names a channel of neither workspace's account. Two workspaces, each
// connected with its own organization's key, each with its own default.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InboxStore } from "../../src/store/inbox.ts";
import type { FakeView } from "../fakes/slack.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  type StackWorkspace,
  startWorkspacesStack,
  type WorkspacesStack,
} from "../helpers/workspaces-stack.ts";
import { Workflow } from "./steps-harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

/** The deployment's channel: the sandbox's first organization's, which neither workspace is connected to. */
const DEPLOYMENT_CHANNEL = "1";

let s: WorkspacesStack;
/** Each workspace's organization's channels, and the one chosen as its default (not its first). */
const channelsOf = new Map<StackWorkspace, number[]>();
const defaultOf = new Map<StackWorkspace, number>();

beforeAll(async () => {
  s = await startWorkspacesStack({
    teams: 2,
    connect: "key",
    env: { MESSAGING_CHANNEL_ID: DEPLOYMENT_CHANNEL },
  });
  for (const ws of s.workspaces) {
    const channels = (await s.sb.sandbox!.channels({ apiKey: ws.org.apiKey })).map((c) => c.id);
    expect(channels.length, `${ws.team.teamId}'s organization has two channels`).toBeGreaterThan(1);
    expect(channels).not.toContain(Number(DEPLOYMENT_CHANNEL));
    channelsOf.set(ws, channels);
    defaultOf.set(ws, channels[1]!);
    expect(await ws.command(`settings set channel=${channels[1]}`)).toMatch(/Saved: /);
  }
}, 120_000);

afterAll(async () => {
  await s?.close();
});

let n = 0;
const newPhone = () => `+1415555${String(3100 + ++n)}`;
const block = (v: FakeView, id: string): Json =>
  ((v.view as Json).blocks as Json[]).find((b) => b.block_id === id);

describe("a workspace's default messaging channel, in many-workspace mode", () => {
  it("a Workflow step with no channel sends from the workspace's default channel", async () => {
    for (const ws of s.workspaces) {
      const wf = new Workflow(ws.req, s.fake);
      // A customer who wrote in on the workspace's default channel: a text reaches them there.
      const { chatUserId } = await s.sb.sandbox!.inbound({
        phone: newPhone(),
        text: "Hi",
        channelId: defaultOf.get(ws),
        of: { apiKey: ws.org.apiKey },
      });
      const run = await wf.run("send_message", {
        actor: ws.user.id,
        chat_user_id: String(chatUserId),
        text: "Your order is on its way",
      });
      expect(run.error, `${ws.team.teamId}'s step`).toBeUndefined();
      const message = await ws.api.getMessage(Number(run.outputs?.message_id));
      expect(message.channelId, `${ws.team.teamId}'s message`).toBe(defaultOf.get(ws));
    }
  });

  it("an inbox reply whose card does not know the conversation's channel goes out on the workspace's default", async () => {
    const ws = s.workspaces[1]!;
    const channel = "C0TWS2INBOX";
    s.fake.addChannel({ id: channel, name: "inbox-2", is_member: true, team: ws.team.teamId });
    const phone = newPhone();
    const { chatUserId } = await s.sb.sandbox!.inbound({
      phone,
      text: "Where is my order?",
      channelId: defaultOf.get(ws),
      of: { apiKey: ws.org.apiKey },
    });
    // The inbox's thread as the poller leaves it, its card drawn without the chat user's channel.
    const store = new InboxStore(s.db, ws.team.teamId);
    const now = new Date();
    await store.setInbox(channel, "all", ws.user.id, now);
    await store.ensureThread(channel, chatUserId, now);
    const card = s.fake.addUserMessage({ channel, user: ws.team.botUserId, text: "Conversation" });
    await store.updateThread(channel, chatUserId, {
      threadTs: card.ts,
      card: { name: phone, needHuman: false, answered: false, tags: [] },
    });
    await store.customerWrote(channel, chatUserId, now);
    const reply = s.fake.addUserMessage({
      channel,
      user: ws.user.id,
      text: "On its way",
      thread_ts: card.ts,
    });
    await ws.req.event({
      type: "message",
      channel,
      user: ws.user.id,
      text: reply.text,
      ts: reply.ts,
      thread_ts: card.ts,
    });
    const sent = await eventually(async () => {
      const r = await s.db.query<{ state: string; api_message_id: string | null }>(
        "select state, api_message_id from inbox.replies where workspace = $1 and channel = $2 and message_ts = $3",
        [ws.team.teamId, channel, reply.ts],
      );
      return r.rows[0]?.state === "sending" ? undefined : r.rows[0];
    }, "the reply's outcome");
    expect(sent).toMatchObject({ state: "sent" });
    const message = await ws.api.getMessage(Number(sent.api_message_id));
    expect(message).toMatchObject({ chatUserId, channelId: defaultOf.get(ws), text: "On its way" });
  });

  it("an inbox card's Reply form offers the conversation's own channel first, else the workspace's default", async () => {
    const ws = s.workspaces[1]!;
    const own = channelsOf.get(ws)![0]!;
    const { chatUserId } = await s.sb.sandbox!.inbound({
      phone: newPhone(),
      text: "Hello?",
      channelId: own,
      of: { apiKey: ws.org.apiKey },
    });
    const before = s.fake.callsOf("views.open").length;
    await ws.click({ action_id: "sb_inbox_reply", value: String(chatUserId) });
    const opened = await s.fake.waitFor(
      () =>
        s.fake
          .callsOf("views.open")
          .slice(before)
          .find((c) => c.response.ok === true && c.team === ws.callTeam),
      20_000,
      "the Reply form",
    );
    const view = s.fake.view((opened.response.view as Json).id)!;
    const menu = block(view, "channel").element;
    expect(menu.initial_option.value).toBe(String(own));
    const offered = (menu.options as Json[]).map((o) => o.value);
    expect(offered).toContain(String(defaultOf.get(ws)));
    expect(offered).not.toContain(DEPLOYMENT_CHANNEL);
  });

  it("the campaign form rebuilt after a choice offers the workspace's default channel first", async () => {
    const ws = s.workspaces[1]!;
    const v = await ws.open("campaign new");
    expect(block(v, "channel").element.initial_option.value).toBe(String(defaultOf.get(ws)));
    // A tag chosen: the form is built again (its menus read again).
    const tag = (block(v, "tag").element.options as Json[])[0];
    expect(tag, "a tag of the demo account").toBeDefined();
    const shown = await ws.act(v.id, "tag", { tag: tag.value });
    const menu = block(shown, "channel").element;
    const offered = (menu.options as Json[]).map((o) => o.value);
    expect(offered[0]).toBe(String(defaultOf.get(ws)));
    expect(offered).not.toContain(DEPLOYMENT_CHANNEL);
  });
});
