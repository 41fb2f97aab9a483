// Issue 10 §2: every import ends in a state people can act on. A failed or
// discarded import lets the same file be shared again for a new preview (a
// successful one still imports once); a 429 on the import request is waited
// out and the request sent again from the file on disk; an import a stopped
// process left running is told as unknown at start, with Try again; and who
// may import or discard (the uploader, a writer; a broadcaster).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSlackApp } from "../../src/slack/app.ts";
import { IMPORT_ACTIONS } from "../../src/slack/features/uploads/message.ts";
import { ImportStore } from "../../src/store/imports.ts";
import { checkMessageBlocks } from "../fakes/block-kit.ts";
import type { FakeMessage, FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import type { CountingProxy } from "../helpers/proxy.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const ALICE = { id: "U0ALICE", name: "alice" };
const BOB = { id: "U0BOB", name: "bob" };
const CAROL = { id: "U0CAROL", name: "carol" };
const DAN = { id: "U0DAN", name: "dan" };

let stack: SlackStack;
let fake: FakeSlack;
let req: SlackRequests;
let proxy: CountingProxy;
/** Answers the proxy gives, in turn, to the next POST /contacts/import requests. */
const importAnswers: Array<{ status: number; headers?: Record<string, string> }> = [];
/** While set, the next POST /contacts/import is held this long before it reaches the sandbox (a slow API). */
let holdImportMs = 0;

beforeAll(async () => {
  stack = await startStack({
    // Alice and Bob make changes; Carol only sends campaigns; Dan does neither.
    writers: [ALICE.id, BOB.id],
    broadcasters: [CAROL.id],
    env: { DEFAULT_COUNTRY: "US", IMPORT_TIMEOUT_MS: "1000" },
    proxy: {
      hold: (method, url) =>
        method === "POST" && url.includes("/contacts/import") && holdImportMs
          ? new Promise((resolve) => setTimeout(resolve, holdImportMs))
          : undefined,
      answer: (method, url) =>
        method === "POST" && url.includes("/contacts/import") ? importAnswers.shift() : undefined,
    },
    slack: { users: [ALICE, BOB, CAROL, DAN] },
  });
  ({ fake, req } = stack);
  proxy = stack.proxy as CountingProxy;
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

let seq = 0;
const phone = () => `+1415556${String(1000 + seq++).padStart(4, "0")}`;
let events = 0;

const share = (fileId: string, user = ALICE) =>
  req.event(
    { type: "file_shared", file_id: fileId, user_id: user.id, channel_id: "C0GENERAL", file: { id: fileId } },
    { eventId: `EvRETRY${events++}` },
  );

function addFile(name: string, csv: string, user = ALICE) {
  return fake.addFile({ name, content: Buffer.from(csv), user: user.id, channels: ["C0GENERAL"] });
}

/** The previews of `name` as posted (a later chat.update changes the fake's copy of a message). */
const previews = (name: string): FakeMessage[] =>
  fake
    .callsOf("chat.postMessage")
    .filter((c) => c.response.ok && String(c.args.text).startsWith(`Import preview of ${name}`))
    .map((c) => ({
      ...(c.response.message as FakeMessage),
      text: String(c.args.text),
      blocks: c.args.blocks as unknown[],
    }));

/** The n-th preview of `name` (from 1), as first posted. */
const preview = async (name: string, n = 1): Promise<FakeMessage> =>
  structuredClone(await fake.waitFor(() => previews(name)[n - 1], 20_000, `preview ${n} of ${name}`));

const controls = (m: { blocks?: unknown[] }): Json[] =>
  ((m.blocks as Json[]) ?? []).flatMap((b) => b.elements ?? []);

async function click(m: FakeMessage, actionId: string, user = ALICE, blocks = m.blocks) {
  const c = controls({ blocks }).find((e) => e.action_id === actionId);
  expect(c, `control ${actionId}`).toBeDefined();
  const sent = await req.blockAction(
    { action_id: actionId, value: c.value, block_id: `imp:${c.value}` },
    { user, messageTs: m.ts, channelId: m.channel, message: { text: m.text, blocks } },
  );
  return sent;
}

/** What the clicker was told privately. */
const told = async (sent: { responseUrl?: string }) =>
  String((await fake.waitForResponse(sent.responseUrl as string)).body.text);

const outcomes = (m: FakeMessage) =>
  fake.messages.filter((x) => x.thread_ts === m.ts && /Imported|import failed/.test(x.text ?? ""));
const outcome = (m: FakeMessage, n = 1) =>
  fake.waitFor(() => outcomes(m)[n - 1], 20_000, `outcome ${n} in the thread`);

const importPosts = () =>
  proxy.seen.filter((s) => s.startsWith("POST") && s.includes("/contacts/import")).length;

async function found(e164: string): Promise<boolean> {
  const page = await stack.client.listContacts({ search: e164.slice(-7), limit: 5 });
  return page.items.some((c) => c.phone === e164);
}

describe("after a failed import or a Discard", () => {
  it("the same file shared again gets a new preview; once imported, sharing it again previews nothing", async () => {
    const p = phone();
    const file = addFile("again.csv", `phone\n${p}\n`);
    await share(file.id);
    const first = await preview("again.csv");
    importAnswers.push({ status: 500 });
    await click(first, IMPORT_ACTIONS.run);
    expect((await outcome(first)).text).toMatch(/import failed.*Share the file again/);
    expect(await found(p)).toBe(false);

    await share(file.id);
    const second = await preview("again.csv", 2);
    expect(second.ts).not.toBe(first.ts);
    await click(second, IMPORT_ACTIONS.discard);
    await fake.waitFor(() =>
      fake
        .callsOf("chat.update")
        .find((c) => c.args.ts === second.ts && /Discarded by/.test(String(c.args.text))),
    );

    await share(file.id);
    const third = await preview("again.csv", 3);
    await click(third, IMPORT_ACTIONS.run);
    expect((await outcome(third)).text).toMatch(/1 created/);
    expect(await found(p)).toBe(true);

    const posts = importPosts();
    await share(file.id);
    await stack.waitForLog((l) => l.msg === "upload already previewed: not again" && l.fileId === file.id);
    expect(previews("again.csv")).toHaveLength(3);
    expect(importPosts()).toBe(posts);
  });
});

describe("a 429 on the import request", () => {
  it("is waited out and the request sent again from the file on disk, once", async () => {
    const [p1, p2] = [phone(), phone()];
    const file = addFile("busy.csv", `phone,first_name\n${p1},Ann\n${p2},Ben\n`);
    await share(file.id);
    const m = await preview("busy.csv");
    const before = importPosts();
    importAnswers.push({ status: 429, headers: { "retry-after": "1" } });
    await click(m, IMPORT_ACTIONS.run);
    expect((await outcome(m)).text).toMatch(/2 created, 0 updated, 0 skipped, 0 failed/);
    expect(importPosts() - before).toBe(2);
    expect((await found(p1)) && (await found(p2))).toBe(true);
  });

  it("a second 429 in a row fails the import, saying to share the file again", async () => {
    const p = phone();
    const file = addFile("busier.csv", `phone\n${p}\n`);
    await share(file.id);
    const m = await preview("busier.csv");
    const before = importPosts();
    importAnswers.push(
      { status: 429, headers: { "retry-after": "1" } },
      { status: 429, headers: { "retry-after": "1" } },
    );
    await click(m, IMPORT_ACTIONS.run);
    const line = (await outcome(m)).text ?? "";
    expect(line).toMatch(/import failed.*Share the file again/);
    expect(line).not.toMatch(/\b429\b/);
    expect(importPosts() - before).toBe(2);
    expect(await found(p)).toBe(false);
  });
});

describe("an import left running by a stopped process", () => {
  it("is told as unknown at start, with what to check and Try again; it runs again only when clicked, once", async () => {
    const p = phone();
    const file = addFile("killed.csv", `phone\n${p}\n`);
    await share(file.id);
    const m = await preview("killed.csv");
    const id = controls(m).find((e) => e.action_id === IMPORT_ACTIONS.run).value as string;
    // The process that claimed it was killed before it sent anything.
    expect(await new ImportStore(stack.db, stack.workspace).claim(id, ALICE.id)).toBeDefined();
    const posts = importPosts();

    // The next start settles it.
    const again = await startSlackApp(stack.switchboard.deployment, stack.config, stack.logger, {
      listen: { port: 0, host: "127.0.0.1" },
    });
    await again.settled;
    await again.stop();
    const update = await fake.waitFor(() =>
      fake
        .callsOf("chat.update")
        .find((c) => c.args.ts === m.ts && /outcome is unknown/.test(String(c.args.text))),
    );
    const blocks = update.args.blocks as unknown[];
    expect(checkMessageBlocks(blocks)).toEqual([]);
    const words = JSON.stringify(blocks);
    expect(words).toMatch(/Outcome unknown/);
    expect(words).toMatch(/\/sb contacts/);
    expect(words).toMatch(/1 contact may have been imported|some, all or none of its 1 contact/);
    // A check first (the contacts, one number of the file), then Try again.
    expect(controls({ blocks }).map((e) => [e.action_id, e.value])).toEqual([
      ["sb_run:1", "contacts"],
      ["sb_run:2", `contacts ${p}`],
      [IMPORT_ACTIONS.retry, id],
    ]);
    await fake.waitFor(() =>
      fake.messages.find((x) => x.thread_ts === m.ts && /outcome is unknown/.test(x.text ?? "")),
    );
    expect(importPosts()).toBe(posts);

    // Import on the old preview does nothing; Try again, by someone who may not, neither.
    expect(await told(await click(m, IMPORT_ACTIONS.run))).toMatch(/outcome .* is unknown/);
    expect(await told(await click(m, IMPORT_ACTIONS.retry, BOB, blocks))).toMatch(/Only <@U0ALICE>/);
    expect(importPosts()).toBe(posts);

    await Promise.all([
      click(m, IMPORT_ACTIONS.retry, ALICE, blocks),
      click(m, IMPORT_ACTIONS.retry, ALICE, blocks),
    ]);
    expect((await outcome(m)).text).toMatch(/1 created/);
    expect(importPosts()).toBe(posts + 1);
    expect(await found(p)).toBe(true);
  });
});

describe("an import that got no answer in time (issue 22 §1)", () => {
  it("is told as unknown, with what to check and Try again, never as failed nor “share it again”", async () => {
    const p = phone();
    const file = addFile("late.csv", `phone\n${p}\n`);
    await share(file.id);
    const m = await preview("late.csv");
    holdImportMs = 3000;
    try {
      await click(m, IMPORT_ACTIONS.run);
      const update = await fake.waitFor(
        () =>
          fake
            .callsOf("chat.update")
            .find((c) => c.args.ts === m.ts && /outcome is unknown/.test(String(c.args.text))),
        20_000,
        "the unknown outcome",
      );
      const blocks = update.args.blocks as unknown[];
      expect(checkMessageBlocks(blocks)).toEqual([]);
      const words = JSON.stringify(blocks);
      expect(words).toMatch(/Outcome unknown.*no answer within 1 s/);
      expect(words).toContain(`/sb contacts ${p}`);
      expect(words).not.toMatch(/import failed|Share the file again/i);
      expect(controls({ blocks }).map((e) => e.action_id)).toContain(IMPORT_ACTIONS.retry);
      const said = await fake.waitFor(() =>
        fake.messages.find((x) => x.thread_ts === m.ts && /outcome is unknown/.test(x.text ?? "")),
      );
      expect(said.text).not.toMatch(/failed|again to retry/);
    } finally {
      holdImportMs = 0;
    }
  });
});

describe("who decides on an upload", () => {
  it("Import: the uploader when a writer, or a broadcaster; Discard: the uploader or a broadcaster", async () => {
    const [a, d] = [phone(), phone()];
    const alices = addFile("alices.csv", `phone\n${a}\n`);
    await share(alices.id);
    const m = await preview("alices.csv");
    // Bob makes changes, but did not share it.
    expect(await told(await click(m, IMPORT_ACTIONS.run, BOB))).toMatch(
      /Only <@U0ALICE>, who shared alices\.csv/,
    );
    expect(await told(await click(m, IMPORT_ACTIONS.discard, BOB))).toMatch(/Only <@U0ALICE>/);
    // Carol sends campaigns: she may import anyone's upload.
    await click(m, IMPORT_ACTIONS.run, CAROL);
    expect((await outcome(m)).text).toMatch(/Imported\* by <@U0CAROL>|Imported by <@U0CAROL>/);

    // Dan may not make changes: not even his own upload is imported by him, but he may discard it.
    const dans = addFile("dans.csv", `phone\n${d}\n`, DAN);
    await share(dans.id, DAN);
    const n = await preview("dans.csv");
    expect(await told(await click(n, IMPORT_ACTIONS.run, DAN))).toMatch(/You may not import/);
    await click(n, IMPORT_ACTIONS.discard, DAN);
    await fake.waitFor(() =>
      fake
        .callsOf("chat.update")
        .find((c) => c.args.ts === n.ts && /Discarded by <@U0DAN>/.test(String(c.args.text))),
    );
    expect(await found(d)).toBe(false);
  });
});

describe("a forged import button", () => {
  it("with an id that is no import's is refused in words, not 'Something went wrong'", async () => {
    for (const actionId of [IMPORT_ACTIONS.run, IMPORT_ACTIONS.discard, IMPORT_ACTIONS.retry]) {
      const sent = await req.blockAction(
        { action_id: actionId, value: "1; drop table x", block_id: "imp:1; drop table x" },
        { user: ALICE, messageTs: "1.000001", channelId: "C0GENERAL", message: { text: "x", blocks: [] } },
      );
      const text = await told(sent);
      expect(text).toBe("This button does not belong to an import Switchboard knows of: nothing was done.");
    }
  });
});
