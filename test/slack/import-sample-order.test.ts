// The sample of an import preview keeps its columns' order after the import
// (issue 9): the summary is stored as jsonb, which orders an object's keys by
// length, so the order is kept apart, as a list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { summarizePreview } from "../../src/imports/index.ts";
import type { ImportPreview } from "../../src/imports/preview.ts";
import { closedMessage } from "../../src/slack/features/uploads/message.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";

let db: TestDb;
beforeAll(async () => {
  db = await openTestDb();
}, 60_000);
afterAll(async () => {
  await db?.close();
});

const sampleHeader = (blocks: unknown[]) => /\*Sample\* \(row {2}([^)]*)\)/.exec(JSON.stringify(blocks))?.[1];

describe("the sample of an import", () => {
  it("shows its columns in the same order before and after the summary is stored", async () => {
    const preview = {
      rows: 1,
      valid: 1,
      failed: 0,
      shape: { format: "csv", encoding: "utf-8", bom: false },
      columns: [],
      samples: [
        { row: 2, contact: { phone: "+14155550101", first_name: "Ana", last_name: "Lima", email: "a@x.io" } },
      ],
      failures: [],
      failuresByCode: {},
      problems: [],
    } as unknown as ImportPreview;
    const summary = summarizePreview(preview);
    const pending = { fileName: "people.csv" } as never;
    const before = sampleHeader(closedMessage(pending, summary, "done").blocks);
    expect(before).toBe("Phone · First name · Last name · Email");
    const { rows } = await db.query<{ j: typeof summary }>("select $1::jsonb as j", [
      JSON.stringify(summary),
    ]);
    const stored = rows[0]!.j;
    expect(Object.keys(stored.samples[0]!.contact)).not.toEqual(Object.keys(summary.samples[0]!.contact));
    expect(sampleHeader(closedMessage(pending, stored, "done").blocks)).toBe(before);
  });
});
