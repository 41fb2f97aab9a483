// Uploads end to end: file_shared (signed, through Bolt) → files.info and the
// download from the fake Slack with the bot token → the preview in the
// thread → Import → the normalized CSV streamed to the sandbox's
// POST /contacts/import → the outcome and an errors CSV uploaded back.

import { spawnSync } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Switchboard } from "../../src/host/app.ts";
import { XLSX_MAX_BYTES } from "../../src/imports/source.ts";
import { UPLOAD_TEMP_ROOT } from "../../src/imports/temp.ts";
import { checkFile, UploadRefused } from "../../src/slack/features/uploads/download.ts";
import { IMPORT_ACTIONS } from "../../src/slack/features/uploads/message.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { checkMessageBlocks } from "../fakes/block-kit.ts";
import type { FakeMessage, FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import type { TestDb } from "../helpers/db.ts";
import { eventually } from "../helpers/eventually.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { workbook } from "../helpers/xlsx-zip.ts";
import { Forms } from "./forms-harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

let fake: FakeSlack;
let db: TestDb;
let switchboard: Switchboard;
let req: SlackRequests;
let forms: Forms;
let logs: Array<Record<string, unknown>>;
const ALICE = { id: "U0ALICE", name: "alice" };
const BOB = { id: "U0BOB", name: "bob" };
const MAX = 64 * 1024;

let stack: SlackStack;

// What a crashed process left in the uploads' temporary folder (a pid that has ended).
const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
const leftover = join(UPLOAD_TEMP_ROOT, `${deadPid}-F0CRASH-0123456789ab`);

beforeAll(async () => {
  await mkdir(UPLOAD_TEMP_ROOT, { recursive: true });
  await writeFile(leftover, "a download left by a crash");
  stack = await startStack({
    writers: [ALICE.id],
    env: { IMPORT_MAX_BYTES: String(MAX), DEFAULT_COUNTRY: "US" },
    slack: { users: [ALICE, BOB] },
  });
  ({ fake, db, switchboard, req, logs } = stack);
  forms = new Forms(req, fake, ALICE);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

let seq = 0;
/** A phone number no other test uses. */
const phone = () => `+1415555${String(2000 + seq++).padStart(4, "0")}`;

async function share(
  name: string,
  content: Buffer,
  opts: { eventId?: string; retryNum?: number; mimetype?: string } = {},
) {
  const file = fake.addFile({
    name,
    content,
    user: ALICE.id,
    channels: ["C0GENERAL"],
    mimetype: opts.mimetype,
  });
  await sendShared(file.id, opts);
  return file;
}

const sendShared = (fileId: string, opts: { eventId?: string; retryNum?: number } = {}) =>
  req.event(
    {
      type: "file_shared",
      file_id: fileId,
      user_id: ALICE.id,
      channel_id: "C0GENERAL",
      file: { id: fileId },
    },
    opts,
  );

/** The preview as first posted (a copy: later chat.update calls change the fake's message). */
const previewOf = async (name: string): Promise<FakeMessage> =>
  structuredClone(
    await fake.waitFor(
      () => fake.messages.find((m) => m.text?.startsWith(`Import preview of ${name}`)),
      20_000,
      `the preview of ${name}`,
    ),
  );

const controls = (m: FakeMessage): Json[] => ((m.blocks as Json[]) ?? []).flatMap((b) => b.elements ?? []);
const control = (m: FakeMessage, actionId: string) => controls(m).find((e) => e.action_id === actionId);

async function click(m: FakeMessage, actionId: string, user = ALICE) {
  const c = control(m, actionId);
  expect(c, `control ${actionId}`).toBeDefined();
  const block = (m.blocks as Json[]).find((b) => b.elements?.includes(c));
  return req.blockAction(
    { action_id: actionId, value: c.value, block_id: block.block_id },
    { user, messageTs: m.ts, channelId: m.channel, message: { text: m.text, blocks: m.blocks } },
  );
}

const outcomeIn = (m: FakeMessage) =>
  fake.waitFor(
    () => fake.messages.find((x) => x.thread_ts === m.ts && /Imported|import failed/.test(x.text ?? "")),
    20_000,
    "the import outcome in the thread",
  );

describe("a CSV shared in a channel", () => {
  it("gets a preview in its thread, imports once on two clicks, and posts the outcome and an errors CSV", async () => {
    const [p1, p2, p3] = [phone(), phone(), phone()];
    const csv =
      "\ufeffPhone;First Name;Last Name;E-mail\n" +
      `${p1.slice(2, 5)} ${p1.slice(5, 8)}-${p1.slice(8)};Ana;Lima;ana@example.com\n` +
      `00${p2.slice(1)};"Bo\nB";Ek;\n` +
      `${p3};Cy;;not-an-email\n` +
      "12;Di;;\n";
    const file = await share("people.csv", Buffer.from(csv, "utf8"), { mimetype: "text/csv" });
    const info = await fake.waitForCall("files.info");
    expect(info.args.file).toBe(file.id);
    const preview = await previewOf("people.csv");
    expect(checkMessageBlocks(preview.blocks)).toEqual([]);
    const text = JSON.stringify(preview.blocks);
    expect(preview.text).toMatch(/4 rows, 2 valid, 2 will fail/);
    expect(text).toMatch(/Phone ← “Phone”/);
    expect(text).toMatch(/row 4/);
    expect(text).toMatch(/row 5/);
    expect(control(preview, IMPORT_ACTIONS.run).text.text).toBe("Import 2 valid rows");

    const before = (await new AuditLog(db, stack.workspace).list({ limit: 1000 })).filter(
      (e) => e.operation === "importContacts",
    ).length;
    await Promise.all([click(preview, IMPORT_ACTIONS.run), click(preview, IMPORT_ACTIONS.run)]);
    const outcome = await outcomeIn(preview);
    expect(outcome.text).toMatch(/4 rows read: 2 created, 0 updated, 0 skipped, 2 failed/);
    const errorsFile = await fake.waitForCall("files.completeUploadExternal");
    expect(errorsFile.args.thread_ts).toBe(preview.ts);
    const uploaded = [...fake.files.values()].find((f) => f.name.endsWith("-errors.csv"));
    const body = uploaded?.content.toString("utf8") ?? "";
    expect(body).toMatch(/^\ufeffrow,First Name,Last Name,phone,reason/);
    expect(body).toMatch(/\r\n4,/);
    expect(body).toMatch(/\r\n5,Di,,12,/);
    const after = (await new AuditLog(db, stack.workspace).list({ limit: 1000 })).filter(
      (e) => e.operation === "importContacts",
    ).length;
    expect(after - before).toBe(1);
    const found = await switchboard.client.listContacts({ search: p2.slice(-7), limit: 5 });
    expect(found.items.map((c) => c.phone)).toContain(p2);

    // A third click, later: told it was done, nothing imported again.
    const late = await click(preview, IMPORT_ACTIONS.run);
    const told = await fake.waitForResponse(late.responseUrl as string);
    expect(String(told.body.text)).toMatch(/Already imported by <@U0ALICE>/);
    expect(
      (await new AuditLog(db, stack.workspace).list({ limit: 1000 })).filter(
        (e) => e.operation === "importContacts",
      ).length,
    ).toBe(after);
  });

  it("tells a phone repeated in the file apart from the rows that will fail (issue 9)", async () => {
    const [p1, p2] = [phone(), phone()];
    const csv = `phone,first_name\n${p1},Ana\n12,Bo\n${p1},Ana again\n${p2},Cy\n`;
    await share("repeats.csv", Buffer.from(csv, "utf8"), { mimetype: "text/csv" });
    const preview = await previewOf("repeats.csv");
    expect(checkMessageBlocks(preview.blocks)).toEqual([]);
    expect(preview.text).toMatch(/4 rows, 2 valid, 1 will fail, 1 repeated \(skipped\)/);
    const text = JSON.stringify(preview.blocks);
    expect(text).toMatch(/\*Will fail\*\\n1"/);
    expect(text).toMatch(/\*Repeated in the file\*\\n1 \(skipped\)/);
    const failing = (preview.blocks as Json[]).find((b) => /Rows that will fail/.test(b.text?.text ?? ""));
    expect(failing.text.text).toMatch(/row 3/);
    expect(failing.text.text).not.toMatch(/row 4/);
    expect(text).toMatch(/1 row repeats the phone of an earlier row \(row 4: /);
    await click(preview, IMPORT_ACTIONS.run);
    const outcome = await outcomeIn(preview);
    expect(outcome.text).toMatch(
      /4 rows read: 2 created, 0 updated, 1 skipped \(1 repeated in the file\), 1 failed/,
    );
    // The row skipped, by number, and why (issue 39).
    expect(JSON.stringify(outcome)).toMatch(
      new RegExp(`Skipped:\\\\n• row 4 \\(\\${p1}\\): same phone as row 2`),
    );
  });

  it("counts the valid rows it will send, says a contact that exists is skipped, and writes names and phones as typed in the errors file (issue 39)", async () => {
    const [known, fresh] = [phone(), phone()];
    await switchboard.client.createContact({ phone: known, first_name: "Known" });
    const csv = `First Name,Phone\nKnown,${known}\nFresh,${fresh}\nShort,+1 555\n`;
    await share("known.csv", Buffer.from(csv, "utf8"), { mimetype: "text/csv" });
    const preview = await previewOf("known.csv");
    expect(checkMessageBlocks(preview.blocks)).toEqual([]);
    expect(preview.text).toMatch(/3 rows, 2 valid, 1 will fail/);
    const text = JSON.stringify(preview.blocks);
    expect(text).not.toMatch(/Will be imported/);
    expect(text).toMatch(/\*Valid rows\*\\n2"/);
    expect(text).toMatch(
      /a phone that is already a contact is skipped or updated, as chosen below, not created twice/,
    );
    expect(control(preview, IMPORT_ACTIONS.run).text.text).toBe("Import 2 valid rows");
    const uploadsBefore = fake.callsOf("files.completeUploadExternal").length;
    await click(preview, IMPORT_ACTIONS.run);
    const outcome = await outcomeIn(preview);
    expect(outcome.text).toMatch(
      /3 rows read: 1 created, 0 updated, 1 skipped \(1 already a contact, not updated\), 1 failed/,
    );
    await fake.waitFor(() => fake.callsOf("files.completeUploadExternal").length > uploadsBefore);
    const uploaded = [...fake.files.values()].find((f) => f.name === "known-errors.csv");
    const body = uploaded?.content.toString("utf8") ?? "";
    expect(body).toBe("\ufeffrow,First Name,phone,reason\r\n4,Short,+1 555,phone +1 555 is too short\r\n");
  });

  it("previews once when Slack delivers the event twice, or the file is shared again", async () => {
    const csv = `phone,first_name\n${phone()},Ed\n`;
    const file = await share("twice.csv", Buffer.from(csv), { eventId: "EvTWICE1" });
    await sendShared(file.id, { eventId: "EvTWICE1", retryNum: 1 });
    await previewOf("twice.csv");
    await sendShared(file.id, { eventId: "EvTWICE2" });
    // The second share reads the file again, then stops at the stored upload (file id + content hash).
    await eventually(
      async () => logs.some((l) => l.msg === "upload already previewed: not again" && l.fileId === file.id),
      "the second share to be recognized",
    );
    const count = () => fake.messages.filter((m) => m.text?.startsWith("Import preview of twice.csv")).length;
    expect(count()).toBe(1);
  });

  it("refuses a file over IMPORT_MAX_BYTES, naming the limit", async () => {
    const big = Buffer.alloc(MAX + 10, "a");
    await share("big.csv", big);
    const msg = await fake.waitFor(() =>
      fake.messages.find((m) => /big\.csv is .* over the import limit/.test(m.text ?? "")),
    );
    expect(msg.text).toMatch(/IMPORT_MAX_BYTES/);
  });

  it("ignores files that are not CSV or xlsx", async () => {
    const file = await share("photo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47]), { mimetype: "image/png" });
    await fake.waitFor(() => fake.callsOf("files.info").some((c) => c.args.file === file.id));
    const csv = await share("after-png.csv", Buffer.from(`phone\n${phone()}\n`));
    await previewOf("after-png.csv");
    expect(fake.messages.some((m) => m.text?.includes("photo.png"))).toBe(false);
    expect(csv.id).toBeTruthy();
  });

  it("refuses Import to someone who did not share the file, and Discard closes the preview", async () => {
    await share("discard.csv", Buffer.from(`phone\n${phone()}\n`));
    const preview = await previewOf("discard.csv");
    const bob = await click(preview, IMPORT_ACTIONS.run, BOB);
    const told = await fake.waitForResponse(bob.responseUrl as string);
    expect(String(told.body.text)).toMatch(/Only <@U0ALICE>, who shared discard\.csv/);
    await click(preview, IMPORT_ACTIONS.discard);
    await fake.waitFor(() =>
      fake.callsOf("chat.update").find((c) => /Discarded by/.test(String(c.args.text))),
    );
    const again = await click(preview, IMPORT_ACTIONS.run);
    const answer = await fake.waitForResponse(again.responseUrl as string);
    expect(String(answer.body.text)).toMatch(/Discarded by <@U0ALICE>/);
  });
});

describe("the file host", () => {
  it("downloads only from Slack's file host (SLACK_API_URL's host when set, else files.slack.com)", () => {
    const file = { id: "F1", name: "a.csv", size: 10, url: "https://evil.example.com/files/F1/a.csv" };
    const limits = { IMPORT_MAX_BYTES: 100 };
    expect(() => checkFile(file, { ...limits, SLACK_API_URL: undefined })).toThrow(UploadRefused);
    expect(() =>
      checkFile(
        { ...file, url: "https://files.slack.com/files-pri/T1-F1/a.csv" },
        { ...limits, SLACK_API_URL: undefined },
      ),
    ).not.toThrow();
    expect(() =>
      checkFile(
        { ...file, url: "https://files.slack.com/x" },
        { ...limits, SLACK_API_URL: "http://127.0.0.1:9/api/" },
      ),
    ).toThrow(/not on Slack's file host \(127\.0\.0\.1:9\)/);
    expect(() =>
      checkFile(
        { ...file, size: 101, url: "https://files.slack.com/x" },
        { ...limits, SLACK_API_URL: undefined },
      ),
    ).toThrow(/IMPORT_MAX_BYTES/);
  });
});

describe("an xlsx file", () => {
  it("is previewed and imported into a new group, updating existing contacts when asked", async () => {
    const existing = phone();
    await switchboard.client.createContact({ phone: existing, first_name: "Old" });
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Contacts");
    ws.addRow(["Mobile Phone", "Given Name", "Family Name", "Loyalty tier"]);
    ws.addRow([existing, "New", "Name", "gold"]);
    ws.addRow([phone(), "Fay", "Ek", "silver"]);
    const content = Buffer.from(await wb.xlsx.writeBuffer());
    await share("crm.xlsx", content);
    const preview = await previewOf("crm.xlsx");
    // Columns by their labels (issue 30), a custom field by its own.
    expect(JSON.stringify(preview.blocks)).toMatch(/Loyalty tier ← “Loyalty tier”/);
    expect(JSON.stringify(preview.blocks)).not.toMatch(/loyalty_tier|first_name \|/);
    // Choose the new group and "update existing" on the message.
    const group = control(preview, IMPORT_ACTIONS.group);
    const update = control(preview, IMPORT_ACTIONS.update);
    const block = (preview.blocks as Json[]).find((b) => b.elements?.includes(group)).block_id;
    for (const [el, value] of [
      [group, "new"],
      [update, "yes"],
    ] as const) {
      const payload = {
        type: "block_actions",
        user: { id: ALICE.id, username: ALICE.name, name: ALICE.name, team_id: fake.teamId },
        api_app_id: "A0SWITCH",
        token: "t",
        container: {
          type: "message",
          message_ts: preview.ts,
          channel_id: preview.channel,
          is_ephemeral: false,
        },
        channel: { id: preview.channel, name: "general" },
        message: { type: "message", ts: preview.ts, text: preview.text, blocks: preview.blocks },
        response_url: fake.newResponseUrl(),
        trigger_id: fake.newTriggerId(),
        team: { id: fake.teamId, domain: "fake" },
        actions: [
          {
            type: "static_select",
            action_id: el.action_id,
            block_id: block,
            selected_option: el.options.find((o: Json) => o.value === value),
            action_ts: "1",
          },
        ],
      };
      const res = await req.post(
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        "application/x-www-form-urlencoded",
      );
      expect(res.status).toBe(200);
    }
    // The choices are stored (asynchronously, after Slack's ack) before Import is clicked.
    await eventually(async () => {
      const { rows } = await db.query<{ new_group: string | null; update_existing: boolean }>(
        "select new_group, update_existing from imports.pending where file_name = 'crm.xlsx'",
      );
      return rows[0]?.update_existing === true && rows[0]?.new_group === "crm";
    }, "the group and update choices to be stored");
    await click(preview, IMPORT_ACTIONS.run);
    const outcome = await outcomeIn(preview);
    expect(outcome.text).toMatch(/1 created, 1 updated, 0 skipped, 0 failed/);
    expect(outcome.text).toMatch(/“crm” \(new\)/);
    const found = await switchboard.client.listContacts({ search: existing.slice(-7), limit: 5 });
    expect(found.items[0]?.first_name).toBe("New");
    expect(found.items[0]?.custom_fields).toMatchObject({ loyalty_tier: "gold" });
  });
});

describe("/sb import", () => {
  it("opens a form with a file input; a submission without a file gets a field error, with one a preview", async () => {
    const v = await forms.open("import");
    expect(v.view.blocks.find((b: Json) => b.block_id === "file").element.type).toBe("file_input");
    const none = await forms.submit(v.id, {});
    expect(none.errors.file).toMatch(/Choose a CSV or xlsx file/);
    const file = fake.addFile({
      name: "form.csv",
      content: Buffer.from(`phone\n${phone()}\n`),
      user: ALICE.id,
    });
    const ok = await forms.submit(v.id, { file: [file.id], update: "yes" });
    expect(ok.response_action).toBeUndefined();
    const preview = await previewOf("form.csv");
    expect(preview.channel).toBe("C0GENERAL");
    expect(control(preview, IMPORT_ACTIONS.update).initial_option.value).toBe("yes");
  });

  it("changes the mapping from a form, and the preview follows", async () => {
    const p = phone();
    await share("mapping.csv", Buffer.from(`Notes,Number\n${p},hello\n`));
    const preview = await previewOf("mapping.csv");
    expect(preview.text).toMatch(/0 valid/);
    const before = fake.callsOf("views.open").length;
    await click(preview, IMPORT_ACTIONS.mapping);
    const call = await fake.waitFor(() =>
      fake
        .callsOf("views.open")
        .slice(before)
        .find((c) => c.response.ok === true),
    );
    const viewId = (call.response.view as Json).id;
    const bad = await forms.submit(viewId, { "col:0": "first_name", "col:1": "first_name" });
    expect(bad.errors["col:1"]).toMatch(/already feeds/);
    expect(bad.errors["col:0"]).toMatch(/phone/);
    const ok = await forms.submit(viewId, { "col:0": "phone", "col:1": "first_name" });
    expect(ok.response_action).toBeUndefined();
    const redrawn = await fake.waitFor(() =>
      fake
        .callsOf("chat.update")
        .find((c) => c.args.ts === preview.ts && /1 valid/.test(String(c.args.text))),
    );
    expect(JSON.stringify(redrawn.args.blocks)).toMatch(/Phone ← “Notes”/);
  });
});

describe("an xlsx that unzips to gigabytes", () => {
  it("gets a refusal in words in its thread, the bot reads the next upload, and no temporary file stays", async () => {
    // 4,000 shared strings of 1 MB declared, in a file of a few KB.
    await share(
      "bomb.xlsx",
      workbook({ strings: 4, stringBytes: 1024 * 1024, declared: 4000 * 1024 * 1024 }),
    );
    const refusal = await fake.waitFor(
      () => fake.messages.find((m) => m.text?.includes("sharedStrings.xml")),
      20_000,
      "the refusal of bomb.xlsx",
    );
    expect(refusal.text).toMatch(
      /too big to read: its text cells \(xl\/sharedStrings\.xml\) unzip to 4000 MB, over the limit of 64 MB: save the sheet as CSV.*Nothing was imported/,
    );
    await share("after-bomb.csv", Buffer.from(`phone\n${phone()}\n`));
    await previewOf("after-bomb.csv");
    // The preview is posted just before its download is removed: wait for it to go.
    const ours = async () => (await readdir(UPLOAD_TEMP_ROOT)).filter((n) => n.startsWith(`${process.pid}-`));
    await eventually(async () => (await ours()).length === 0, "the temporary files to be removed");
    expect(await ours()).toEqual([]);
  });

  it("the start removed what a crashed process left in the temporary folder", async () => {
    expect((await readdir(UPLOAD_TEMP_ROOT)).includes(leftover.split("/").pop() ?? "")).toBe(false);
  });
});

describe("the xlsx limit", () => {
  it("refuses an xlsx over XLSX_MAX_BYTES before download, saying to save it as CSV; a CSV that size is fine", () => {
    const config = { IMPORT_MAX_BYTES: 100 * 1024 * 1024, SLACK_API_URL: undefined };
    const url = "https://files.slack.com/files-pri/T1-F1/x";
    const size = XLSX_MAX_BYTES + 1;
    expect(() => checkFile({ id: "F1", name: "crm.xlsx", size, url }, config)).toThrow(
      /crm\.xlsx is 5\.0 MB, over the 5\.0 MB limit for \.xlsx files: save the sheet as CSV/,
    );
    expect(() => checkFile({ id: "F1", name: "export", filetype: "xlsx", size, url }, config)).toThrow(
      UploadRefused,
    );
    expect(() => checkFile({ id: "F1", name: "crm.xlsx", size: XLSX_MAX_BYTES, url }, config)).not.toThrow();
    expect(() => checkFile({ id: "F1", name: "crm.csv", size, url }, config)).not.toThrow();
  });
});

itLeavesBUntouched(() => stack);
