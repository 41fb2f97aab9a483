// Pictures and files both ways (issue 20 §1), on real parts: the sandbox
// (customers write images and documents through its control route, and it
// fetches every mediaUrl it accepts), the fake Slack (it refuses an image
// block whose image_url it "cannot fetch", and answers its login page when
// the app lacks files:read), the Bolt app serving /media/<id>, and the poller
// stepped by hand. A file host on loopback stands for the customer's side.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSlackApp } from "../../src/slack/app.ts";
import { prepareMedia } from "../../src/slack/features/inbox/media.ts";
import { MediaStore } from "../../src/store/media.ts";
import { signedRequests } from "../helpers/fake-slack.ts";
import { useInboxStack } from "../helpers/inbox.ts";
import { type MediaServer, PDF, PNG, startMediaServer } from "../helpers/media-server.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const INBOX = "C0INBOX";
const clock = manualClock();

let files: MediaServer;
let publicUrl = "";

const t = useInboxStack({ channels: [{ id: INBOX, name: "inbox" }], users: [ALICE], clock });

beforeAll(async () => {
  files = await startMediaServer();
  // The app's own address, known once it listens: customers' phones fetch files there.
  publicUrl = `http://127.0.0.1:${t.s.slack.port}`;
  t.s.config.PUBLIC_URL = publicUrl;
}, 120_000);

afterAll(async () => {
  await files?.close();
});

/** A chat user writes in (text, or an image or document), through the sandbox's control route. */
const customerWrites = (chatUserId: number, body: Rec) => t.parts.customerWrites(chatUserId, body);

const inThread = (ts: string) => t.parts.inThread(ts);
const handled = (ts: string, outcome: string) =>
  t.s.waitForLog((l) => l.msg === "inbox thread message handled" && l.ts === ts && l.outcome === outcome);

let thread = "";
let user = 0;
let conversation = 0;

async function outbound(): Promise<Rec[]> {
  const page = await t.s.client.listConversationMessages(conversation, { limit: 100 });
  return page.items.filter((m) => m.direction === "outbound").reverse();
}

/** A writer's thread reply with files, as Slack delivers it (`subtype: file_share`). */
async function replyWithFiles(
  text: string,
  shared: Array<{ name: string; mimetype: string; content: Buffer }>,
  req = t.s.req,
) {
  const added = shared.map((f) =>
    t.s.fake.addFile({ ...f, filetype: f.name.split(".").pop(), user: ALICE.id, channels: [INBOX] }),
  );
  const msg = t.s.fake.addUserMessage({ channel: INBOX, user: ALICE.id, text, thread_ts: thread });
  const ephemerals = t.s.fake.callsOf("chat.postEphemeral").length;
  await req.event({
    type: "message",
    subtype: "file_share",
    channel: INBOX,
    user: ALICE.id,
    text,
    ts: msg.ts,
    thread_ts: thread,
    files: added.map((f) => ({ id: f.id, name: f.name, mimetype: f.mimetype })),
  });
  const told = () =>
    t.s.fake
      .callsOf("chat.postEphemeral")
      .slice(ephemerals)
      .map((c) => String(c.args.text));
  return { msg, told };
}

describe("pictures and files", { timeout: 60_000 }, () => {
  it("from the customer: an image as an image block, a document as its name with a link, each with its caption", async () => {
    const page = await t.s.client.listChatUsers({ limit: 100 });
    user = page.items.find((u) => u.type === "phonechat")?.id as number;
    await t.s.core.run(`inbox on ${INBOX}`, { userId: ALICE.id, channelId: INBOX, via: "slack" });
    await t.runtime.poller.step();
    await customerWrites(user, { text: "Hello" });
    await t.runtime.poller.step();
    const row = (await t.store.thread(INBOX, user))!;
    thread = row.threadTs as string;
    conversation = row.conversationId as number;
    expect(thread).toBeTruthy();

    const image = `${files.url}/a.png`;
    await customerWrites(user, { type: "image", mediaUrl: image, text: "My *broken* screen" });
    await customerWrites(user, {
      type: "document",
      mediaUrl: `${files.url}/doc.pdf`,
      fileName: "invoice <March>.pdf",
      text: "The invoice",
    });
    const before = inThread(thread).length;
    await t.runtime.poller.step();
    const [img, doc] = inThread(thread).slice(before);
    const imgBlocks = img?.blocks as Rec[];
    expect(imgBlocks.find((b) => b.type === "image")).toMatchObject({ image_url: image });
    expect(JSON.stringify(imgBlocks)).toContain("My *broken* screen");
    const docText = JSON.stringify(doc?.blocks);
    expect(docText).toContain(`<${files.url}/doc.pdf|invoice &lt;March&gt;.pdf>`);
    expect(docText).toContain("The invoice");
  });

  it("from the customer: an image Slack cannot fetch is posted again at once as a link; a URL not http(s) stays text", async () => {
    t.s.fake.imageUrlFetchable = (url) => !url.includes("unreachable");
    const unreachable = `${files.url}/unreachable.png`;
    await customerWrites(user, { type: "image", mediaUrl: unreachable, text: "see" });
    await customerWrites(user, { type: "image", mediaUrl: "ftp://files.example/x.png" });
    const before = inThread(thread).length;
    const refusedBefore = t.s.fake.callsOf("chat.postMessage").filter((c) => c.response.ok === false).length;
    await t.runtime.poller.step();
    const [link, ftp] = inThread(thread).slice(before);
    const shown = JSON.stringify(link?.blocks);
    expect(shown).toContain(`<${unreachable}|image>`);
    expect(shown).not.toContain('"type":"image"');
    expect(
      t.s.fake.callsOf("chat.postMessage").filter((c) => c.response.ok === false).length - refusedBefore,
    ).toBe(1);
    const ftpShown = JSON.stringify(ftp?.blocks);
    expect(ftpShown).toContain("image: ftp://files.example/x.png");
    expect(ftpShown).not.toContain("<ftp:");
    expect(ftpShown).not.toContain('"type":"image"');
    // Nothing left for the next poll.
    expect(await t.runtime.poller.step()).toMatchObject({ posted: 0 });
  });

  it("to the customer: an image with its caption, served by Switchboard at PUBLIC_URL/media/<id>", async () => {
    const { msg } = await replyWithFiles("Here is the label", [
      { name: "label.png", mimetype: "image/png", content: PNG },
    ]);
    await handled(msg.ts, "sent");
    const [sent] = (await outbound()).slice(-1);
    expect(sent).toMatchObject({ type: "image", text: "Here is the label" });
    const url = String(sent?.mediaUrl);
    expect(url).toMatch(new RegExp(`^${publicUrl}/media/[A-Za-z0-9_-]{32}$`));
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    const head = await fetch(url, { method: "HEAD" });
    expect([head.status, head.headers.get("content-length")]).toEqual([200, String(PNG.length)]);
    expect(t.s.fake.messages.find((m) => m.ts === msg.ts)?.reactions).toEqual(["white_check_mark"]);
    // Switchboard's own send is not mirrored back.
    const before = inThread(thread).length;
    await t.runtime.poller.step();
    expect(inThread(thread)).toHaveLength(before);
  });

  it("to the customer: several files, one message each in order, the text as the first one's caption", async () => {
    const count = (await outbound()).length;
    const { msg } = await replyWithFiles("Both files", [
      { name: "terms.pdf", mimetype: "application/pdf", content: PDF },
      { name: "map.jpg", mimetype: "image/jpeg", content: PNG },
    ]);
    await handled(msg.ts, "sent");
    const sent = (await outbound()).slice(count);
    expect(sent.map((m) => [m.type, m.text ?? null])).toEqual([
      ["document", "Both files"],
      ["image", null],
    ]);
    const doc = await fetch(String(sent[0]?.mediaUrl));
    expect(doc.headers.get("content-type")).toBe("application/pdf");
    expect(doc.headers.get("content-disposition")).toContain("terms.pdf");
    expect(Buffer.from(await doc.arrayBuffer()).equals(PDF)).toBe(true);
  });

  it("refused before anything is sent: a file too big, a wrong type, Slack's login page (no files:read); told why", async () => {
    const count = (await outbound()).length;
    const kept = await new MediaStore(t.s.db, t.s.workspace).count();

    const big = await replyWithFiles("Big one", [
      { name: "huge.png", mimetype: "image/png", content: Buffer.alloc(5 * 1024 * 1024 + 1) },
    ]);
    await handled(big.msg.ts, "refused");
    expect(big.told().join("\n")).toMatch(
      /huge\.png is 5\.0 MB, too large to send to a customer: images up to 5 MB can be sent\./,
    );

    const gif = await replyWithFiles("", [
      { name: "cat.gif", mimetype: "image/gif", content: Buffer.from("GIF89a") },
    ]);
    await handled(gif.msg.ts, "refused");
    expect(gif.told().join("\n")).toMatch(
      /cat\.gif cannot be sent to a customer: images must be JPEG or PNG/,
    );

    // A good file beside a wrong one: nothing of the reply is sent.
    const mixed = await replyWithFiles("Two", [
      { name: "ok.png", mimetype: "image/png", content: PNG },
      { name: "tool.exe", mimetype: "application/x-msdownload", content: Buffer.from("MZ") },
    ]);
    await handled(mixed.msg.ts, "refused");
    expect(mixed.told().join("\n")).toMatch(/tool\.exe cannot be sent/);

    t.s.fake.filesRead = false;
    const login = await replyWithFiles("No scope", [{ name: "p.png", mimetype: "image/png", content: PNG }]);
    await handled(login.msg.ts, "refused");
    t.s.fake.filesRead = true;
    expect(login.told().join("\n")).toMatch(
      /login page instead of the file: the app needs the files:read scope/,
    );

    expect(await outbound()).toHaveLength(count);
    expect(await new MediaStore(t.s.db, t.s.workspace).count()).toBe(kept);
  });

  it("without PUBLIC_URL: the writer is told privately, nothing is sent, the text is kept in the answer", async () => {
    const count = (await outbound()).length;
    // A process of the same deployment whose settings have no PUBLIC_URL (a process reads its settings once).
    const bare = await startSlackApp(
      t.s.switchboard.deployment,
      { ...t.s.config, PUBLIC_URL: undefined },
      t.s.logger,
      { listen: { port: 0, host: "127.0.0.1" } },
    );
    try {
      const r = await replyWithFiles(
        "Your receipt, *signed*",
        [{ name: "receipt.pdf", mimetype: "application/pdf", content: PDF }],
        signedRequests(t.s.fake, bare.port as number),
      );
      await handled(r.msg.ts, "no public address");
      const told = r.told().join("\n");
      expect(told).toMatch(/sending files to customers needs a public address .*PUBLIC_URL/);
      expect(told).toContain("Your text, to send again:\n>Your receipt, *signed*");
      expect(await outbound()).toHaveLength(count);
    } finally {
      await bare.stop();
    }
  });

  it("a media URL expired: no longer served, removed, and the sandbox refuses to deliver it", async () => {
    const media = new MediaStore(t.s.db, t.s.workspace);
    const f = t.s.fake.addFile({ name: "old.png", mimetype: "image/png", filetype: "png", content: PNG });
    const hours = t.s.config.MEDIA_TTL_HOURS;
    const [old] = await prepareMedia(
      t.s.slack.client,
      media,
      t.s.config,
      [{ id: f.id }],
      new Date(Date.now() - (hours + 1) * 3_600_000),
    );
    const kept = await media.count();
    const res = await fetch(String(old?.mediaUrl));
    expect(res.status).toBe(404);
    expect(await media.count()).toBe(kept - 1);
    await expect(
      t.s.client.sendMessage({
        channelId: 1,
        chatUserId: user,
        type: "image",
        mediaUrl: String(old?.mediaUrl),
      }),
    ).rejects.toThrow(/answered HTTP 404/);
    // An id never given out: 404 too.
    expect((await fetch(`${publicUrl}/media/${"x".repeat(32)}`)).status).toBe(404);
  });
});
