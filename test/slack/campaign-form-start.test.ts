// The campaign form's start time (issue 37 §3) passes the rule `send at=`
// passes: a time in the workspace's quiet hours, or more than a year away, is
// refused at its field (response_action errors, in startAtOf's words), and
// nothing is created, held or posted. Through Bolt, the fake Slack, the core
// and the sandbox; the quiet hours (UTC) are set around a time two hours from now.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../src/store/db.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Forms, randomName } from "./forms-harness.ts";

let stack: SlackStack;
let forms: Forms;

const pad = (n: number) => String(n).padStart(2, "0");
const hhmm = (t: number) => {
  const d = new Date(t);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
};
/** The time chosen in the form: two hours from now, to the minute; the quiet hours an hour either side of it. */
const AT = Math.floor((Date.now() + 2 * 3_600_000) / 60_000) * 60;
const QUIET = { from: hhmm(AT * 1000 - 3_600_000), to: hhmm(AT * 1000 + 3_600_000) };

beforeAll(async () => {
  stack = await startStack({
    writers: ["U0ALICE"],
    env: {
      MESSAGING_CHANNEL_ID: "1",
      REPORTS_TIME_ZONE: "UTC",
      QUIET_HOURS: `${QUIET.from}-${QUIET.to}`,
    },
    slack: { channels: [{ id: "C0GENERAL", name: "general", is_member: true }] },
  });
  forms = new Forms(stack.req, stack.fake);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** The first group the campaign form offers (its audience). */
const groupOf = (view: { blocks?: unknown }): string =>
  (view.blocks as Array<{ block_id?: string; element?: { options?: Array<{ value: string }> } }>).find(
    (b) => b.block_id === "groups",
  )?.element?.options?.[0]?.value ?? "";

/** The form filled in (template order_update, a group), submitted with `start`; Slack's answer. */
async function submitWithStart(name: string, start: number) {
  const v = await forms.open("campaign new");
  const [order] = await forms.suggest(v.id, "template", "order_update");
  const shown = await forms.act(v.id, "template", { template: order!.value });
  return forms.submit(shown.id, {
    name,
    template: order!.value,
    "param:first_name": "friend",
    "param:order_id": "F-1",
    groups: [groupOf(shown.view)],
    start: String(start),
  });
}

async function campaignsNamed(name: string): Promise<number> {
  let found = 0;
  for (let page = 1; ; page++) {
    const { items, limit } = await stack.client.listCampaigns({ page, limit: 100 });
    found += items.filter((c) => c.name === name).length;
    if (items.length < limit) return found;
  }
}

/** Held starts kept (campaign-start timers), of every workspace. */
const heldCount = async (db: Queryable = stack.db) =>
  Number(
    (await db.query<{ n: string }>("select count(*) as n from timers.due where kind = 'campaign-start'"))
      .rows[0]?.n,
  );

describe("the campaign form's start time", () => {
  it("in the quiet hours: refused at its field in send at='s words; nothing created, held or posted", async () => {
    const name = randomName("Quiet form");
    const held = await heldCount();
    const posts = stack.fake.messages.length;
    const answer = await submitWithStart(name, AT);
    expect(answer.response_action).toBe("errors");
    const errors = answer.errors as Record<string, string>;
    expect(Object.keys(errors)).toEqual(["start"]);
    const iso = new Date(AT * 1000).toISOString().replace(".000Z", "Z");
    expect(errors.start).toBe(
      `The start time ${iso} is in the quiet hours (${QUIET.from}-${QUIET.to}, UTC): choose a time from ${QUIET.to}, or ask an admin to change the quiet hours.`,
    );
    expect(await campaignsNamed(name)).toBe(0);
    expect(await heldCount()).toBe(held);
    expect(stack.fake.messages.slice(posts).filter((m) => String(m.text).includes(name))).toEqual([]);
  });

  it("more than a year away: refused at its field; nothing created", async () => {
    const name = randomName("Far form");
    const far = Math.floor(Date.now() / 1000) + 400 * 86_400;
    const answer = await submitWithStart(name, far);
    expect(answer.response_action).toBe("errors");
    expect((answer.errors as Record<string, string>).start).toMatch(
      /^The start time \d{4}-\d{2}-\d{2} is more than a year away: choose a time before /,
    );
    expect(await campaignsNamed(name)).toBe(0);
  });

  it("outside the quiet hours: created and held, as before", async () => {
    const name = randomName("Day form");
    const at = AT + 3 * 3600;
    const answer = await submitWithStart(name, at);
    expect(answer.response_action).toBeUndefined();
    const posted = await stack.fake.waitFor(
      () => stack.fake.messages.find((m) => String(m.text).includes(name)),
      10_000,
      "the form's post",
    );
    expect(JSON.stringify(posted.blocks)).toContain(`Starts at <!date^${at}^`);
  });
});

describe("the campaign form's start time is set as any start is (issue 37 §1: who may)", () => {
  let own: SlackStack;
  beforeAll(async () => {
    // Alice writes (makes drafts) but only Bob sends campaigns.
    own = await startStack({
      writers: ["U0ALICE", "U0BOB"],
      broadcasters: ["U0BOB"],
      env: { MESSAGING_CHANNEL_ID: "1", REPORTS_TIME_ZONE: "UTC" },
      slack: { channels: [{ id: "C0GENERAL", name: "general", is_member: true }] },
    });
  }, 120_000);
  afterAll(async () => {
    await own?.close();
  });

  it("a writer who may not send campaigns: the draft is made, its start not set, said on the post", async () => {
    const f = new Forms(own.req, own.fake);
    const name = randomName("Writer form");
    const before = await heldCount(own.db);
    const v = await f.open("campaign new");
    const [order] = await f.suggest(v.id, "template", "order_update");
    const shown = await f.act(v.id, "template", { template: order!.value });
    const answer = await f.submit(shown.id, {
      name,
      template: order!.value,
      "param:first_name": "friend",
      "param:order_id": "F-1",
      groups: [groupOf(shown.view)],
      start: String(Math.floor(Date.now() / 1000) + 3 * 86_400),
    });
    expect(answer.response_action).toBeUndefined();
    const posted = await own.fake.waitFor(
      () => own.fake.messages.find((m) => String(m.text).includes(name)),
      10_000,
      "the form's post",
    );
    expect(JSON.stringify(posted.blocks)).toContain(
      "Its start was not set: Only those who may send campaigns",
    );
    expect(JSON.stringify(posted.blocks)).not.toContain("Cancel start");
    expect(await heldCount(own.db)).toBe(before);
  });
});
