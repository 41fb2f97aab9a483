// A campaign's test is Switchboard's own send (issue 37 §5), end to end on
// real parts: the sandbox over HTTP, the fake Slack, the poller stepped by
// hand. `campaign <id> test <phone>` to a customer's phone shows in that
// customer's inbox thread as "Test of *Spring sale* by @alice" (from the
// shell: "from Switchboard's shell"), never as sent from elsewhere.

import { describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/types.ts";
import { useInboxStack } from "../helpers/inbox.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const AS_ALICE: Actor = { userId: ALICE.id, via: "slack", channelId: "C0GENERAL" };
const SHELL: Actor = { userId: "shell", via: "shell" };
const INBOX = "C0TESTS";
const clock = manualClock();

const t = useInboxStack({
  channels: [{ id: INBOX, name: "tests", is_member: true }],
  users: [ALICE],
  clock,
});

/** Runs a line as `actor`, confirming the prompt a new test number asks. */
async function confirmed(line: string, actor: Actor) {
  const asked = await t.s.core.run(line, actor);
  return asked.confirmation ? t.s.core.confirm(asked.confirmation.id, actor) : asked;
}

describe("a campaign's test in the customer's inbox thread", { timeout: 90_000 }, () => {
  it("reads as a test of the campaign by who sent it, never as sent from elsewhere", async () => {
    await t.s.core.run(`inbox on ${INBOX}`, SHELL);
    await t.runtime.poller.step();
    // A phone chat customer with a thread of their own.
    const page = await t.s.client.listChatUsers({ limit: 100 });
    const customer = page.items.find(
      (u) => typeof u.id === "number" && u.type === "phonechat" && typeof u.phone === "string",
    );
    expect(customer).toBeDefined();
    const user = customer!.id as number;
    const phone = customer!.phone as string;
    await t.parts.customerWrites(user, "Is the sale on?");
    await t.runtime.poller.step();
    const threadTs = (await t.store.thread(INBOX, user))?.threadTs as string;
    expect(threadTs).toBeTruthy();

    const add = await t.s.core.run(
      "campaign add Spring sale template=1 group=1 first_name=Ana order_id=A-7",
      AS_ALICE,
    );
    const id = Number(/campaign #(\d+)/i.exec(add.text)?.[1]);
    expect(id, add.text).toBeGreaterThan(0);
    clock.advance(1000);
    expect((await confirmed(`campaign ${id} test ${phone}`, AS_ALICE)).text).toMatch(
      /^:test_tube: Test of \*Spring sale\* sent to/,
    );
    clock.advance(1000);
    expect((await confirmed(`campaign ${id} test ${phone}`, SHELL)).text).toMatch(/^:test_tube: Test of/);
    await t.runtime.poller.step();

    const tests = t.s.fake.messages.filter(
      (m) => m.channel === INBOX && m.thread_ts === threadTs && JSON.stringify(m.blocks).includes("Test of"),
    ) as Rec[];
    const shown = tests.map((m) => JSON.stringify(m.blocks));
    expect(shown).toHaveLength(2);
    expect(shown[0]).toContain(`Test of *Spring sale* by <@${ALICE.id}>`);
    expect(shown[1]).toContain("Test of *Spring sale* from Switchboard's shell");
    for (const blocks of shown) expect(blocks).not.toContain("sent from elsewhere");
    expect(String(tests[0]!.text)).toContain(`Test of Spring sale by <@${ALICE.id}>`);
  });
});
