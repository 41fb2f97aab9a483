// Every form in many-workspace mode, in three workspaces installed with "Add
// to Slack" (test/helpers/workspaces-stack.ts): each form opened, filled and
// submitted in a workspace must run with that workspace's own parts: its
// messaging account (the record lands in its sandbox organization, not in
// another's), its options (the menus a form loads as the person types), and
// its bot token (the fake Slack records which workspace's token made a call).
// The fake ties a view and its submission to the workspace that opened it, as
// Slack does. The connect form connects each workspace first; then settings,
// campaign, send, template, contact and chat-user edit, import, the four
// shortcuts, and the inbox card's Reply (the send form, for that chat user).
import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessagingClient } from "../../src/api/client.ts";
import { IMPORT_ACTIONS } from "../../src/slack/features/uploads/message.ts";
import { SHORTCUTS } from "../../src/slack/forms/form.ts";
import type { FakeMessage, FakeSlack, FakeView, RecordedCall } from "../fakes/slack.ts";
import {
  type StackWorkspace,
  startWorkspacesStack,
  type WorkspacesStack,
} from "../helpers/workspaces-stack.ts";
import { randomName } from "./forms-harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

let stack: WorkspacesStack;
let fake: FakeSlack;
let all: StackWorkspace[];
/** Each workspace's own records, made in its organization before the forms. */
const own = new Map<
  string,
  {
    groupId: number;
    groupName: string;
    contactId: number;
    contactName: string;
    phone: string;
    chatUserId: number;
  }
>();
const ZONES = ["Europe/Paris", "Asia/Tokyo", "America/Chicago"];

beforeAll(async () => {
  stack = await startWorkspacesStack({ teams: 3, connect: "none" });
  fake = stack.fake;
  all = stack.workspaces;
  let n = 0;
  for (const ws of all) {
    n += 1;
    const groupName = `Only ${ws.team.teamId}`;
    const group = await ws.api.createGroup({ name: groupName });
    const contactName = `Solo${ws.team.teamId}`;
    const contact = await ws.api.createContact({ phone: `+1415555${7100 + n}`, first_name: contactName });
    // A customer of this workspace writes in: the 24-hour window is open for the forms' messages.
    const phone = `+1415555${7200 + n}`;
    const inbound = await stack.sb.sandbox!.inbound({
      phone,
      text: `Hello ${ws.team.teamId}`,
      of: { apiKey: ws.org.apiKey },
    });
    own.set(ws.team.teamId, {
      groupId: Number(group.id),
      groupName,
      contactId: Number(contact.id),
      contactName,
      phone,
      chatUserId: inbound.chatUserId,
    });
  }
}, 240_000);

afterAll(async () => {
  // SCREENS_DIR=dir: every view the forms showed, as Block Kit JSON, for blockkit-preview (docs/screens).
  const dir = process.env.SCREENS_DIR;
  if (dir && fake) {
    mkdirSync(dir, { recursive: true });
    for (const [i, v] of [...fake.views.values()].entries())
      writeFileSync(
        `${dir}/ws-${v.teamId}-${String(i + 1).padStart(2, "0")}-${v.view.callback_id}.json`,
        JSON.stringify(v.view),
      );
  }
  await stack?.close();
});

const ownOf = (ws: StackWorkspace) => own.get(ws.team.teamId)!;
const others = (ws: StackWorkspace) => all.filter((o) => o !== ws);
const block = (v: FakeView, id: string): Json =>
  ((v.view as Json).blocks as Json[]).find((b) => b.block_id === id);
/** The messaging channel a form offers first (an id of the workspace's own organization). */
const channelOf = (v: FakeView): string | undefined => {
  const el = block(v, "channel")?.element;
  if (!el) return undefined;
  return el.initial_option?.value ?? ((el.options ?? []) as Json[]).find((o) => /^\d+$/.test(o.value))?.value;
};
const withChannel = (v: FakeView, entries: Record<string, unknown>) => {
  const channel = channelOf(v);
  return (channel ? { channel, ...entries } : entries) as Record<string, string | string[]>;
};

/**
 * Each workspace connected to its own organization, by the command when the
 * connect form did not: every form below then shows its own defect, not the
 * connect form's.
 */
async function connectAll(): Promise<void> {
  for (const ws of all) {
    if (await stack.sb.installations.connection(ws.team.teamId)) continue;
    expect(await ws.command(`connect key=${ws.org.apiKey}`)).toContain("Connected to");
  }
}

/** Accepted: closed, or the "Working…" view when the API outlasted Slack's 3 s; never field errors. */
function accepted(answer: Json, what: string): void {
  expect(answer.response_action === "errors" ? answer.errors : undefined, what).toBeUndefined();
}

/**
 * A chat.postMessage made with this workspace's bot token whose text matches;
 * none with another's (among the calls from the `since`-th on).
 */
async function postedBy(ws: StackWorkspace, re: RegExp, what: string, since = 0): Promise<RecordedCall> {
  const matches = (c: RecordedCall) =>
    c.method === "chat.postMessage" && c.response.ok === true && re.test(String(c.args.text ?? ""));
  const call = await fake.waitFor(
    () => fake.calls.slice(since).find((c) => matches(c) && c.team === ws.callTeam),
    30_000,
    `${what} posted with ${ws.team.teamId}'s token`,
  );
  expect(
    fake.calls
      .slice(since)
      .filter((c) => matches(c) && c.team !== ws.callTeam)
      .map((c) => c.team ?? "the deployment's own token"),
    `${what} posted with another workspace's token`,
  ).toEqual([]);
  return call;
}

/** Found with this workspace's key, and with no other workspace's (ids are the sandbox's, across organizations). */
async function onlyIn(
  ws: StackWorkspace,
  read: (api: MessagingClient) => Promise<unknown>,
  what: string,
): Promise<Json> {
  const found = await read(ws.api);
  for (const o of others(ws))
    await expect(
      read(o.api).then(() => "found"),
      `${what} in ${o.team.teamId}'s organization`,
    ).rejects.toThrow();
  return found;
}

/** The view opened (or updated) with this workspace's token is this workspace's. */
function isOwnView(ws: StackWorkspace, v: FakeView): void {
  expect(v.team, `the form of ${ws.team.teamId}`).toBe(ws.callTeam);
  expect(v.teamId).toBe(ws.team.teamId);
}

// Each test walks three workspaces, each form waiting on Slack calls: longer than the default.
describe("every form, in three workspaces", { timeout: 180_000 }, () => {
  it("connects each workspace by the form with its own organization's key", async () => {
    for (const ws of all) {
      const v = await ws.open("connect");
      isOwnView(ws, v);
      expect((v.view as Json).callback_id).toBe("sb_connect");
      const answer = await ws.submit(v.id, { key: ws.org.apiKey });
      accepted(answer, `${ws.team.teamId}'s connect form`);
      await postedBy(ws, new RegExp(`Connected to \\*${ws.org.name}\\*`), "the connection");
      expect((await stack.sb.installations.connection(ws.team.teamId))?.apiKey).toBe(ws.org.apiKey);
    }
  });

  it("saves each workspace's settings in that workspace", async () => {
    await connectAll();
    for (const [i, ws] of all.entries()) {
      const list = await ws.open("settings");
      isOwnView(ws, list);
      // The Times group of the list (issue 39 §2): the view updated in its own workspace.
      const v = await ws.act(
        list.id,
        "settings_times",
        {},
        { action_id: "settings_group_times", value: "times" },
      );
      isOwnView(ws, v);
      const since = fake.calls.length;
      const answer = await ws.submit(v.id, { tz: ZONES[i]! });
      accepted(answer, `${ws.team.teamId}'s settings form`);
      await postedBy(ws, /Settings of this workspace/, "the saved settings", since);
    }
    for (const [i, ws] of all.entries()) {
      const rt = await stack.sb.workspaces.runtime(ws.team.teamId);
      const settings = await rt!.core.admin!.settings();
      expect(settings.reportsTimeZone.value, ws.team.teamId).toBe(ZONES[i]);
    }
  });

  it("campaign form: its menus load the workspace's own templates and contacts; the draft is its own", async () => {
    await connectAll();
    for (const ws of all) {
      const mine = ownOf(ws);
      const v = await ws.open("campaign new");
      isOwnView(ws, v);
      const groups = (block(v, "groups").element.options as Json[]).map((o) => o.text.text as string);
      expect(groups.join("\n")).toContain(mine.groupName);
      for (const o of others(ws)) expect(groups.join("\n")).not.toContain(ownOf(o).groupName);
      // The template menu, as the person types: this workspace's templates, no other's.
      const templates = await ws.suggest(v.id, "template", "", withChannel(v, {}));
      expect(templates.length, `${ws.team.teamId}'s templates`).toBeGreaterThan(0);
      const ownIds = (await ws.api.listTemplates()).items.map((t) => String(t.id));
      for (const t of templates) expect(ownIds).toContain(t.value);
      // The audience menu: its own contact, and not another workspace's.
      const contacts = await ws.suggest(v.id, "contacts", mine.contactName);
      expect(contacts.map((c) => c.value)).toContain(`contact:${mine.contactId}`);
      for (const o of others(ws))
        expect(
          await ws.suggest(v.id, "contacts", ownOf(o).contactName),
          `${o.team.teamId}'s contact`,
        ).toEqual([]);
      const order = templates.find((t) => String(t.text.text).startsWith("order_update"));
      expect(order, "the demo's order_update template").toBeDefined();
      const shown = await ws.act(v.id, "template", withChannel(v, { template: order.value }));
      const name = randomName(`Campaign ${ws.team.teamId}`);
      const answer = await ws.submit(
        shown.id,
        withChannel(v, {
          name,
          template: order.value,
          "param:first_name": "friend",
          "param:order_id": "A-1",
          groups: [String(mine.groupId)],
          contacts: [`contact:${mine.contactId}`],
        }),
      );
      accepted(answer, `${ws.team.teamId}'s campaign form`);
      const post = await postedBy(ws, new RegExp(`Draft campaign #\\d+ “${name}”`), "the draft");
      const id = Number(/Draft campaign #(\d+)/.exec(String(post.args.text))![1]);
      const campaign = await onlyIn(ws, (api) => api.getCampaign(id), `campaign #${id}`);
      expect(campaign.name).toBe(name);
    }
  });

  it("send form: the message goes out with the workspace's key", async () => {
    await connectAll();
    for (const ws of all) {
      const mine = ownOf(ws);
      const v = await ws.open("send");
      isOwnView(ws, v);
      const text = `Hi from ${ws.team.teamId} ${randomName("send")}`;
      const answer = await ws.submit(v.id, withChannel(v, { to: mine.phone, text }));
      accepted(answer, `${ws.team.teamId}'s send form`);
      await sentOnlyIn(ws, text);
    }
  });

  it("template form: the template is submitted in the workspace's organization", async () => {
    await connectAll();
    for (const ws of all) {
      const v = await ws.open("template new");
      isOwnView(ws, v);
      await ws.act(v.id, "body", withChannel(v, { body: "Hi {{name}}" }));
      const name = `tpl_${ws.team.teamId.toLowerCase()}_${randomName("x").slice(2)}`;
      const since = fake.calls.length;
      const answer = await ws.submit(
        v.id,
        withChannel(v, {
          name,
          language: "en",
          category: "UTILITY",
          body: "Hi {{name}}",
          "example:name": "Ana",
        }),
      );
      accepted(answer, `${ws.team.teamId}'s template form`);
      await postedBy(ws, new RegExp(`Template \\*${name}\\* submitted for approval`), "the template", since);
      // The post names it; it is found in this workspace's organization only.
      const byName = async (api: MessagingClient) => {
        const t = (await api.listTemplates()).items.find((x) => x.name === name);
        if (!t) throw new Error(`no template ${name}`);
        return t;
      };
      expect((await onlyIn(ws, byName, `template ${name}`)).name).toBe(name);
    }
  });

  it("contact and chat-user edit forms: the workspace's own records change", async () => {
    await connectAll();
    for (const ws of all) {
      const mine = ownOf(ws);
      const contact = await ws.open(`contact edit ${mine.contactId}`);
      isOwnView(ws, contact);
      const lastName = `Last${ws.team.teamId}`;
      let since = fake.calls.length;
      accepted(await ws.submit(contact.id, { last_name: lastName }), `${ws.team.teamId}'s contact form`);
      await postedBy(ws, /: last name changed/, "the contact change", since);
      const after = await onlyIn(ws, (api) => api.getContact(mine.contactId), `contact #${mine.contactId}`);
      expect(after.last_name).toBe(lastName);

      const user = await ws.open(`user edit ${mine.chatUserId}`);
      isOwnView(ws, user);
      const address = `1 ${ws.team.teamId} Street`;
      since = fake.calls.length;
      accepted(await ws.submit(user.id, { address }), `${ws.team.teamId}'s chat-user form`);
      await postedBy(ws, /: address changed/, "the chat-user change", since);
      const changed = await onlyIn(
        ws,
        (api) => api.getChatUser(mine.chatUserId),
        `chat user #${mine.chatUserId}`,
      );
      expect(JSON.stringify(changed)).toContain(address);
    }
  });

  it("import form: the preview and the import are the workspace's", async () => {
    await connectAll();
    for (const [i, ws] of all.entries()) {
      const v = await ws.open("import");
      isOwnView(ws, v);
      const phone = `+1415555${7300 + i}`;
      const name = `people-${ws.team.teamId.toLowerCase()}.csv`;
      const file = fake.addFile({
        name,
        content: Buffer.from(`phone,first_name\n${phone},Imp${ws.team.teamId}\n`),
        user: ws.user.id,
        mimetype: "text/csv",
      });
      accepted(await ws.submit(v.id, { file: [file.id] }), `${ws.team.teamId}'s import form`);
      await postedBy(ws, new RegExp(`^Import preview of ${name}`), "the preview");
      const preview = structuredClone(
        fake.messages.find((m) => m.text?.startsWith(`Import preview of ${name}`)),
      ) as FakeMessage;
      const controls = (preview.blocks as Json[]).flatMap((b) => b.elements ?? []);
      const run = controls.find((e: Json) => e.action_id === IMPORT_ACTIONS.run);
      const runBlock = (preview.blocks as Json[]).find((b) => b.elements?.includes(run));
      await ws.click(
        { action_id: IMPORT_ACTIONS.run, value: run.value, block_id: runBlock.block_id },
        {
          messageTs: preview.ts,
          channelId: preview.channel,
          message: { text: preview.text, blocks: preview.blocks },
        },
      );
      await fake.waitFor(
        () => fake.messages.find((x) => x.thread_ts === preview.ts && /Imported/.test(x.text ?? "")),
        30_000,
        `${ws.team.teamId}'s import outcome`,
      );
      const found = await ws.api.listContacts({ search: phone.slice(-7), limit: 5 });
      expect(found.items.map((c) => c.first_name)).toEqual([`Imp${ws.team.teamId}`]);
      for (const o of others(ws))
        expect(
          (await o.api.listContacts({ search: phone.slice(-7), limit: 5 })).items,
          o.team.teamId,
        ).toEqual([]);
    }
  });

  it("the four shortcuts open the workspace's own forms, and their submissions use its key", async () => {
    await connectAll();
    for (const ws of all) {
      const mine = ownOf(ws);
      const campaign = await ws.shortcut(SHORTCUTS.newCampaign);
      isOwnView(ws, campaign);
      expect((campaign.view as Json).callback_id, `${ws.team.teamId}'s New campaign`).toBe("sb_campaign");
      expect(JSON.stringify(block(campaign, "groups"))).toContain(mine.groupName);

      const imp = await ws.shortcut(SHORTCUTS.import);
      isOwnView(ws, imp);
      expect((imp.view as Json).callback_id, `${ws.team.teamId}'s Import contacts`).toBe("sb_import");
      expect(JSON.stringify(block(imp, "group"))).toContain(mine.groupName);

      const send = await ws.shortcut(SHORTCUTS.send);
      isOwnView(ws, send);
      expect((send.view as Json).callback_id, `${ws.team.teamId}'s Send a message`).toBe("sb_send");
      const text = `Shortcut from ${ws.team.teamId} ${randomName("s")}`;
      accepted(
        await ws.submit(send.id, withChannel(send, { to: mine.phone, text })),
        "the send shortcut's form",
      );
      await sentOnlyIn(ws, text);

      const said = `Forwarded in ${ws.team.teamId} ${randomName("m")}`;
      const forward = await ws.shortcut(SHORTCUTS.sendToCustomer, {
        message: { text: said },
        channelId: "C0GENERAL",
      });
      isOwnView(ws, forward);
      expect((forward.view as Json).callback_id, `${ws.team.teamId}'s Send to a customer`).toBe("sb_send");
      expect(block(forward, "text").element.initial_value).toBe(said);
      accepted(
        await ws.submit(forward.id, withChannel(forward, { to: mine.phone })),
        "the message shortcut's form",
      );
      await sentOnlyIn(ws, said);
    }
  });

  it("the inbox card's Reply opens the send form for that chat user; the reply goes out with the workspace's key", async () => {
    await connectAll();
    for (const ws of all) {
      const mine = ownOf(ws);
      const before = fake.callsOf("views.open").length;
      const click = await ws.click(
        { action_id: "sb_inbox_reply", value: String(mine.chatUserId) },
        { messageTs: `${Math.floor(Date.now() / 1000)}.000300`, channelId: "C0GENERAL" },
      );
      expect(click.status).toBe(200);
      const opened = await fake.waitFor(
        () =>
          fake
            .callsOf("views.open")
            .slice(before)
            .find((c) => c.response.ok === true && c.team === ws.callTeam),
        20_000,
        `${ws.team.teamId}'s reply form`,
      );
      const v = fake.view((opened.response.view as Json).id)!;
      isOwnView(ws, v);
      expect(block(v, "recipient").element.initial_option.value).toBe(`user:${mine.chatUserId}`);
      const text = `Reply from ${ws.team.teamId} ${randomName("r")}`;
      accepted(await ws.submit(v.id, withChannel(v, { text })), `${ws.team.teamId}'s reply form`);
      await sentOnlyIn(ws, text);
    }
  });
});

/** A message sent by a form: said with the workspace's token, and in its organization only. */
async function sentOnlyIn(ws: StackWorkspace, text: string): Promise<void> {
  const quoted = text.slice(0, 40).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const post = await postedBy(
    ws,
    new RegExp(`Sent to .*${quoted}[\\s\\S]*Message #\\d+`),
    "the sent message",
  );
  const id = Number(/Message #(\d+)/.exec(String(post.args.text))![1]);
  const message = await onlyIn(ws, (api) => api.getMessage(id), `message #${id}`);
  expect(JSON.stringify(message)).toContain(text);
}
