// The imports service on its own, as both front ends use it: the real sandbox
// over HTTP on loopback, the real API client, a real store (PGlite, or
// PostgreSQL when DATABASE_URL is set), from the test stack. No Slack; the
// command core is not used.

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { MessagingClient } from "../../src/api/client.ts";
import type { WorkspaceId } from "../../src/domain/workspace.ts";
import {
  type ImportProgress,
  ImportService,
  importFields,
  type NewPendingImport,
  PendingImports,
  type PreviewSummary,
} from "../../src/imports/index.ts";
import { ImportStore, type PendingImport } from "../../src/store/imports.ts";
import type { TestDb } from "../helpers/db.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const stack = useStack({
  sandbox: { seed: false, readLimit: 100_000, writeLimit: 100_000 },
  sandboxDb: "own",
  // A 25,000-row import on a loaded 2-core machine: no timing is asserted.
  env: { API_READ_LIMIT: "100000", API_WRITE_LIMIT: "100000", API_TIMEOUT_MS: "120000" },
});
let client: MessagingClient;
let db: TestDb;
/** The workspace the stack drives (A in many-workspace mode). */
let workspace: WorkspaceId;
const service = new ImportService({ defaultCountry: "US" });

beforeAll(() => {
  ({ client, db, workspace } = stack());
});

let seq = 0;
/** A valid US number no other test of this file uses. */
const phone = () => `+1415555${String(3000 + seq++).padStart(4, "0")}`;
const local = (e164: string) => `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`;

async function contactByPhone(e164: string) {
  const page = await client.listContacts({ search: e164.slice(-7), limit: 5 });
  return page.items.filter((c) => c.phone === e164);
}

describe("ImportService: preview, then run", () => {
  const ROWS = 25_000;

  it("maps the headers, streams the valid rows with increasing progress, and puts every failure on the user's row", async () => {
    // Rows 2–25,001 (the header is row 1): exports in local form, with three
    // rows that cannot be imported: row 3 too short, row 6 a duplicate of row
    // 2, and row 9's score, which the preview took for text (the definition it
    // was given is stale) and the API refuses as a number.
    await client.createContactField({ key: "score", label: "Score", type: "number" });
    const stale = [{ key: "score", label: "Score", type: "text" }];
    const lines = ["Mobile,First Name,Surname,Notes,Score"];
    const phones: string[] = [];
    for (let i = 0; i < ROWS; i++) {
      const p = `+1415${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, "0")}`;
      phones.push(p);
      lines.push(`${local(p)},N${i},Big,note ${i},${i === 7 ? "high" : i % 10}`);
    }
    lines[2] = "12,Short,Number,,";
    lines[5] = `${local(phones[0]!)},Again,Dup,,`;
    const bytes = Buffer.from(`${lines.join("\r\n")}\r\n`);

    const preview = await service.preview(bytes, stale);
    expect(preview.mapping).toMatchObject({ phone: [0], first_name: 1, last_name: 2, fields: { score: 4 } });
    expect(preview.ignored.map((c) => c.header)).toEqual(["Notes"]);
    expect([preview.rows, preview.valid, preview.failed]).toEqual([ROWS, ROWS - 2, 2]);

    const progress: ImportProgress[] = [];
    const outcome = await service.run(
      {
        source: bytes,
        fileName: "Big list.csv",
        mapping: preview.mapping,
        fields: stale,
        total: preview.rows,
        updateExisting: false,
      },
      client,
      (p) => progress.push(p),
    );

    // Progress: at least once mid-way, never going back, ending on the total.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.some((p) => p.done > 0 && p.done < ROWS)).toBe(true);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]!.done).toBeGreaterThanOrEqual(progress[i - 1]!.done);
    expect(progress.at(-1)).toEqual({ done: ROWS, total: ROWS });

    // The repeated row is skipped, not failed: every row is accounted for (issue 9).
    expect(outcome).toMatchObject({
      rows: ROWS,
      created: ROWS - 3,
      updated: 0,
      skipped: 1,
      duplicates: 1,
      existing: 0,
      failed: 2,
      unlisted: 0,
    });
    expect(outcome.failures.map((f) => f.row)).toEqual([3, 9]);
    expect(outcome.failures[1]?.message).toMatch(/score must be a number/);
    expect(outcome.errorReport?.fileName).toBe("Big list-errors.csv");
    const report = outcome.errorReport?.content ?? "";
    expect(report).toMatch(/^\ufeffrow,First Name,Surname,phone,reason\r\n3,Short,Number,12,/);
    // A row the API refused has its name and phone cells as typed too (the file read again for it).
    expect(report.split("\r\n")[2]).toMatch(/^9,N7,Big,\(415\).*,.*score must be a number/);

    // Normalized on the way: the local form became E.164, the surname the last name.
    const [first] = await contactByPhone(phones[0]!);
    expect(first).toMatchObject({ first_name: "N0", last_name: "Big" });
    expect(await contactByPhone(phones[7]!)).toEqual([]);
  }, 180_000);

  it("reads the organization's fields, ordered, as the mapping takes them", async () => {
    const fields = await importFields(client);
    expect(fields).toContainEqual({ key: "score", label: "Score", type: "number" });
  });
});

describe("PendingImports: the life of an upload waiting for a decision", () => {
  const imports = () => new PendingImports(new ImportStore(db, workspace), service);
  const upload = (bytes: Buffer, over: Partial<NewPendingImport> = {}): NewPendingImport => ({
    fileId: `F${seq++}`,
    contentHash: `hash-${bytes.length}-${seq}`,
    fileName: "people.csv",
    userId: "U0ALICE",
    channel: "C0GENERAL",
    updateExisting: false,
    ...over,
  });
  /** Runs as the Slack side does: the file from a function, counting how often it is obtained. */
  const runner = (bytes: Buffer) => {
    let opened = 0;
    const claimed: PendingImport[] = [];
    return {
      how: {
        api: client,
        source: async () => {
          opened++;
          return bytes;
        },
        onClaimed: async (p: PendingImport) => {
          claimed.push(p);
        },
      },
      opened: () => opened,
      claimed,
    };
  };

  it("previews once per upload, keeps the choices while pending, and runs once however often it is asked", async () => {
    const [a, b] = [phone(), phone()];
    const bytes = Buffer.from(`Phone,Name\n${local(a)},Ana Lima\n${b},Bo\nfax only,Cy\n`);
    const up = upload(bytes);
    const first = await imports().propose(up, bytes, []);
    expect(first?.summary).toMatchObject<Partial<PreviewSummary>>({ rows: 3, valid: 2, failed: 1 });
    expect(first?.summary.columns).toEqual([
      { header: "Phone", target: "phone", letter: "A" },
      { header: "Name", target: "name", letter: "B" },
    ]);
    // The same upload delivered again (same file id and bytes): nothing new.
    expect(await imports().propose(up, bytes, [])).toBeUndefined();
    const id = first!.pending.id;

    const chosen = await imports().choose(id, { group: { newName: "People" }, updateExisting: true });
    expect(chosen).toMatchObject({ newGroup: "People", updateExisting: true });

    const r = runner(bytes);
    const runs = await Promise.all([imports().run(id, "U0ALICE", r.how), imports().run(id, "U0BOB", r.how)]);
    const done = runs.filter((x) => x.ok);
    const refused = runs.filter((x) => !x.ok);
    expect(done).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(r.opened()).toBe(1);
    expect(r.claimed).toHaveLength(1);
    const run = done[0]!;
    if (!run.ok || run.state !== "done") throw new Error(`expected done, got ${JSON.stringify(run)}`);
    expect(run.outcome).toMatchObject({ created: 2, updated: 0, failed: 1 });
    expect(run.outcome.failures).toEqual([
      expect.objectContaining({ row: 4, phone: "fax only", reason: expect.stringMatching(/letters/) }),
    ]);
    expect(run.outcome.newGroup?.name).toBe("People");
    const members = await client.listContacts({ groupId: run.outcome.newGroup!.id, limit: 10 });
    expect(members.items.map((c) => c.phone).sort()).toEqual([a, b].sort());
    expect((await contactByPhone(a))[0]).toMatchObject({ first_name: "Ana", last_name: "Lima" });

    // Later: done, with its result kept; nothing runs or changes again.
    const stored = await imports().get(id);
    expect(stored).toMatchObject({ state: "done", decidedBy: run.pending.decidedBy });
    expect(stored?.result).toMatchObject({ created: 2, updated: 0, errors: 1 });
    const again = await imports().run(id, "U0ALICE", r.how);
    expect(again).toMatchObject({ ok: false, current: { state: "done" } });
    expect(r.opened()).toBe(1);
    expect(await imports().choose(id, { updateExisting: false })).toBeUndefined();
    expect(await imports().discard(id, "U0ALICE")).toMatchObject({ ok: false, current: { state: "done" } });
  });

  it("stores a run the API refuses as failed, with the API's reason", async () => {
    const bytes = Buffer.from(`phone\n${phone()}\n`);
    const proposed = await imports().propose(upload(bytes, { groupId: 999_999 }), bytes, []);
    const run = await imports().run(proposed!.pending.id, "U0ALICE", runner(bytes).how);
    expect(run).toMatchObject({ ok: true, state: "failed", error: expect.stringMatching(/999999/) });
    const stored = await imports().get(proposed!.pending.id);
    expect(stored).toMatchObject({ state: "failed", result: { error: expect.stringMatching(/999999/) } });
  });

  it("reads the file again with a new mapping, and a discarded import cannot run", async () => {
    const p = phone();
    const bytes = Buffer.from(`Notes,Number\n${p},hello\n`);
    const proposed = await imports().propose(upload(bytes), bytes, []);
    expect(proposed?.summary.valid).toBe(0);
    const id = proposed!.pending.id;
    const remapped = await imports().remap(
      id,
      bytes,
      { phone: [0], first_name: 1, last_name: null, email: null, name: null, fields: {} },
      [],
    );
    if (!remapped.ok) throw new Error("the import should still be pending");
    expect(remapped.summary).toMatchObject({ valid: 1, failed: 0 });
    expect(remapped.pending.mapping).toMatchObject({ phone: [0], first_name: 1 });

    expect(await imports().discard(id, "U0BOB")).toMatchObject({ ok: true, pending: { state: "discarded" } });
    const r = runner(bytes);
    expect(await imports().run(id, "U0ALICE", r.how)).toMatchObject({
      ok: false,
      current: { state: "discarded", decidedBy: "U0BOB" },
    });
    expect(r.opened()).toBe(0);
    expect(await contactByPhone(p)).toEqual([]);
    expect(await imports().run("00000000-0000-0000-0000-000000000000", "U0ALICE", r.how)).toEqual({
      ok: false,
      current: undefined,
    });
  });
});

describe("src/imports", () => {
  it("names no front end: nothing of src/slack, src/shell or src/commands is imported, not even a type", async () => {
    const dir = join(import.meta.dirname, "..", "..", "src", "imports");
    const offending: string[] = [];
    for (const name of await readdir(dir, { recursive: true })) {
      if (!name.endsWith(".ts")) continue;
      const text = await readFile(join(dir, name), "utf8");
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (/^(\.\.\/)+(slack|shell|commands)\//.test(m[1]!)) offending.push(`${name}: ${m[1]}`);
      }
    }
    expect(offending).toEqual([]);
  });
});

itLeavesBUntouched(stack);
