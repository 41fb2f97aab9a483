// A large upload shows its progress: while the normalized CSV streams to the
// sandbox, the preview message is redrawn with the rows read so far, no more
// often than the throttle allows, and the outcome is the last redraw. The
// throttle's clock is the test's (one second per reading), so nothing sleeps
// and nothing depends on how fast the machine is.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IMPORT_ACTIONS } from "../../src/slack/features/uploads/message.ts";
import { checkMessageBlocks } from "../fakes/block-kit.ts";
import type { FakeMessage, FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const ALICE = { id: "U0ALICE", name: "alice" };
const ROWS = 50_000;
// The default throttle (3 s) against a clock that moves 1 s each time it is read.
const STEP_MS = 1000;
const EVERY_MS = 3000;

let fake: FakeSlack;
let req: SlackRequests;
let clockReads = 0;
const clock = () => ++clockReads * STEP_MS;

let stack: SlackStack;

beforeAll(async () => {
  stack = await startStack({
    writers: [ALICE.id],
    // The 50,000-row import takes over 15 s on a loaded 2-core machine: this test is about the redraws, not the timeout.
    env: { IMPORT_MAX_BYTES: String(16 * 1024 * 1024), DEFAULT_COUNTRY: "US", API_TIMEOUT_MS: "120000" },
    slack: { users: [ALICE], progress: { now: clock } },
  });
  ({ fake, req } = stack);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** ROWS distinct valid US numbers (415-200-0000 on), as a plain export would have them. */
function bigCsv(): Buffer {
  const lines = ["phone,first_name,last_name"];
  for (let i = 0; i < ROWS; i++)
    lines.push(`(415) ${200 + Math.floor(i / 10_000)}-${String(i % 10_000).padStart(4, "0")},N${i},Big`);
  return Buffer.from(`${lines.join("\n")}\n`);
}

const num = (s: string) => Number(s.replace(/,/g, ""));

describe("a large CSV", () => {
  it("redraws the preview with the rows read, throttled, never going back, and ends on the outcome", async () => {
    const file = fake.addFile({
      name: "big-list.csv",
      content: bigCsv(),
      user: ALICE.id,
      channels: ["C0GENERAL"],
      mimetype: "text/csv",
    });
    await req.event({
      type: "file_shared",
      file_id: file.id,
      user_id: ALICE.id,
      channel_id: "C0GENERAL",
      file: { id: file.id },
    });
    const preview: FakeMessage = structuredClone(
      await fake.waitFor(
        () => fake.messages.find((m) => m.text?.startsWith("Import preview of big-list.csv")),
        60_000,
        "the preview",
      ),
    );
    expect(preview.text).toMatch(/50,000 rows, 50,000 valid, 0 will fail/);
    const run = ((preview.blocks as Json[]) ?? [])
      .flatMap((b) => b.elements ?? [])
      .find((e: Json) => e.action_id === IMPORT_ACTIONS.run);
    const block = (preview.blocks as Json[]).find((b) => b.elements?.includes(run));
    await req.blockAction(
      { action_id: IMPORT_ACTIONS.run, value: run.value, block_id: block.block_id },
      {
        user: ALICE,
        messageTs: preview.ts,
        channelId: preview.channel,
        message: { text: preview.text, blocks: preview.blocks },
      },
    );
    const outcome = await fake.waitFor(
      () =>
        fake.messages.find((m) => m.thread_ts === preview.ts && /Imported|import failed/.test(m.text ?? "")),
      120_000,
      "the outcome in the thread",
    );
    expect(outcome.text).toMatch(/50,000 rows read: 50,000 created, 0 updated, 0 skipped, 0 failed/);

    const updates = fake.callsOf("chat.update").filter((c) => c.args.ts === preview.ts);
    // Slack's limits: every redraw was accepted (blocks, fallback text, length).
    for (const u of updates) {
      expect(u.response.ok, JSON.stringify(u.response)).toBe(true);
      expect(checkMessageBlocks(u.args.blocks)).toEqual([]);
    }
    const progress = updates
      .map((u) => /^Importing big-list\.csv… ([\d,]+) of ([\d,]+) rows/.exec(String(u.args.text)))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ rows: num(m[1]!), of: num(m[2]!) }));
    // The first redraw (0 rows) when Import is clicked, then at least one during the stream.
    expect(progress[0]).toEqual({ rows: 0, of: ROWS });
    const during = progress.slice(1);
    expect(during.length).toBeGreaterThanOrEqual(1);
    expect(during.some((p) => p.rows > 0 && p.rows < ROWS)).toBe(true);
    expect(JSON.stringify(updates[1]?.args.blocks)).toMatch(/Importing…\* [\d,]+ of 50,000 rows \(\d+%\)/);
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.rows).toBeGreaterThanOrEqual(progress[i - 1]!.rows);
      expect(progress[i]!.of).toBe(ROWS);
    }
    // The throttle: the clock was read once at the start and once per progress
    // report; a redraw needs EVERY_MS of it since the last one.
    expect(during.length).toBeLessThanOrEqual(Math.floor(((clockReads - 1) * STEP_MS) / EVERY_MS));
    // The outcome is the last redraw: no progress lands after it.
    const last = updates.at(-1);
    expect(String(last?.args.text)).toMatch(/Imported\* by <@U0ALICE>: 50,000 rows read: 50,000 created/);
    expect(JSON.stringify(last?.args.blocks)).not.toMatch(/Importing/);
    expect(updates.filter((u) => /Imported/.test(String(u.args.text)))).toHaveLength(1);
  }, 180_000);
});
