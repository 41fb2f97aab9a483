// Work the API accepted is never told as failed (issue 27 §4): a campaign
// send and an import the API took (201) while Slack no longer takes the
// workspace's messages (its token revoked: chat.postMessage refused, the
// request's response_url expired) are not turned into "Something went wrong
// … Try again". The outcome is logged, kept for the person, and said with
// their next command.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { IMPORT_ACTIONS } from "../../src/slack/features/uploads/message.ts";
import { UndeliveredOutcomes } from "../../src/store/undelivered.ts";
import type { FakeMessage } from "../fakes/slack.ts";
import { eventually } from "../helpers/eventually.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const ALICE = { id: "U0ALICE", name: "alice" };
let s: SlackStack;

beforeAll(async () => {
  s = await startStack({ writers: [ALICE.id], broadcasters: [ALICE.id], slack: { users: [ALICE] } });
}, 60_000);

afterAll(async () => {
  await s?.close();
});

afterEach(() => {
  // Slack takes the workspace's messages again.
  s.fake.refuseNext("chat.postMessage", "token_revoked", 0);
  s.fake.responsesRefused = undefined;
});

const buttons = (blocks: unknown): Json[] =>
  ((blocks as Json[]) ?? []).flatMap((b: Json) => b.elements ?? (b.accessory ? [b.accessory] : []));

/** Every answer given on any response_url, refused or not, as text. */
const everyAnswer = () => JSON.stringify(s.fake.responses.map((r) => r.body));

/** Slack stops taking the workspace's messages: posts refused, response_urls expired (but the "working on it"). */
function revoke(): void {
  s.fake.refuseNext("chat.postMessage", "token_revoked", 100);
  s.fake.responsesRefused = (body) => !/working on it/.test(JSON.stringify(body));
}

const kept = () => new UndeliveredOutcomes(s.db, s.switchboard.workspace).list(ALICE.id);

/**
 * The person's next command, Slack taking messages again: its answers on its response_url. Sent once the
 * outcome is settled: the try to say it at once on the refused response_url has failed and put it back
 * (a command sent while that try is under way finds nothing kept yet, and the outcome waits for the one after).
 */
async function nextCommand(): Promise<string> {
  await eventually(
    async () =>
      s.logs.some((l) =>
        String(l.msg).includes("could not show the outcomes kept for a person; kept again"),
      ) && (await kept()).length > 0
        ? true
        : undefined,
    "the outcome put back after the try to say it at once",
  );
  s.fake.refuseNext("chat.postMessage", "token_revoked", 0);
  s.fake.responsesRefused = undefined;
  const sent = await s.req.command("help", { user: ALICE });
  await s.fake.waitForResponse(sent.responseUrl as string, 2, 20_000);
  return JSON.stringify(s.fake.responsesTo(sent.responseUrl as string).map((r) => r.body));
}

describe("an outcome Slack would not take", () => {
  it("a campaign the API sent is kept for the person and said with their next command, never 'try again'", async () => {
    const draft = await s.client.createCampaign({
      name: "Spring sale",
      integrationId: 1,
      templateId: 1,
      groupIds: [1],
      templateParameters: { first_name: "friend", order_id: "A-1" },
    });
    const id = draft.id as number;
    const ask = await s.req.command(`campaign ${id} send`, { user: ALICE });
    const prompt = await s.fake.waitForResponse(ask.responseUrl as string);
    const confirm = buttons(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm));
    expect(confirm).toBeDefined();
    revoke();
    await s.req.blockAction(
      { action_id: confirm.action_id, value: confirm.value },
      { responseUrl: ask.responseUrl, user: ALICE },
    );
    // Sent: the API has it.
    await eventually(
      async () => ((await s.client.getCampaign(id)).status !== "draft" ? true : undefined),
      "the campaign sent",
    );
    const outcomes = await eventually(async () => {
      const k = await kept();
      return k.length > 0 ? k : undefined;
    }, "the outcome kept");
    expect(outcomes[0]!.text).toMatch(/Done, but Slack no longer accepts Switchboard's messages/);
    expect(outcomes[0]!.text).toMatch(/Spring sale/);
    expect(everyAnswer()).not.toMatch(/Something went wrong|Try again/i);
    expect(s.logs.some((l) => String(l.msg).includes("its outcome could not be posted"))).toBe(true);

    const answers = await nextCommand();
    expect(answers).toMatch(/could not tell you this earlier/);
    expect(answers).toMatch(/Spring sale/);
    // Removed once said (just after the answer).
    await eventually(
      async () => ((await kept()).length === 0 ? true : undefined),
      "the outcome removed once said",
    );
  });

  it("an import the API took is kept for the person and said with their next command, never 'try again'", async () => {
    const csv = "Phone,First Name\n+14155559001,Ana\n+14155559002,Bo\n";
    const file = s.fake.addFile({
      name: "spring.csv",
      content: Buffer.from(csv),
      user: ALICE.id,
      channels: ["C0GENERAL"],
      mimetype: "text/csv",
    });
    await s.req.event({
      type: "file_shared",
      file_id: file.id,
      user_id: ALICE.id,
      channel_id: "C0GENERAL",
      file: { id: file.id },
    });
    const preview: FakeMessage = structuredClone(
      await s.fake.waitFor(
        () => s.fake.messages.find((m) => m.text?.startsWith("Import preview of spring.csv")),
        20_000,
        "the preview",
      ),
    );
    const run = buttons(preview.blocks).find((b) => b.action_id === IMPORT_ACTIONS.run);
    const block = (preview.blocks as Json[]).find((b) => b.elements?.includes(run));
    revoke();
    const click = await s.req.blockAction(
      { action_id: run.action_id, value: run.value, block_id: block.block_id },
      {
        user: ALICE,
        messageTs: preview.ts,
        channelId: preview.channel,
        message: { text: preview.text, blocks: preview.blocks },
      },
    );
    const outcomes = await eventually(async () => {
      const k = await kept();
      return k.length > 0 ? k : undefined;
    }, "the outcome kept");
    expect(outcomes[0]!.text).toMatch(/Imported by <@U0ALICE>: 2 rows read: 2 created/);
    expect(outcomes[0]!.text).toMatch(/spring\.csv/);
    // The API has them.
    const found = await s.client.listContacts({ search: "+14155559001" } as never);
    expect(JSON.stringify(found.items)).toMatch(/14155559001/);
    expect(JSON.stringify(s.fake.responsesTo(click.responseUrl as string))).not.toMatch(
      /Something went wrong|Try again/i,
    );
    expect(everyAnswer()).not.toMatch(/Something went wrong/i);

    const answers = await nextCommand();
    expect(answers).toMatch(/could not tell you this earlier/);
    expect(answers).toMatch(/Imported by <@U0ALICE>: 2 rows read: 2 created/);
    // Removed once said (just after the answer).
    await eventually(
      async () => ((await kept()).length === 0 ? true : undefined),
      "the outcome removed once said",
    );
  });
});
