// The Home tab says what Switchboard could not tell the person earlier
// (issue 27 §4): their kept outcomes (src/store/undelivered.ts) at the top,
// newest first, with Got it, which takes them and publishes the tab again.
// Said once: after Got it the next command does not say them, and a command
// that says them publishes the tab again without them. Each workspace's
// person sees only that workspace's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { cutMrkdwn, KEPT_SHOWN, safeMrkdwn } from "../../src/slack/features/home/view.ts";
import { UndeliveredOutcomes } from "../../src/store/undelivered.ts";
import type { RecordedCall } from "../fakes/slack.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const ALICE = { id: "U0ALICE", name: "alice" };
const BOB = { id: "U0BOB", name: "bob" };

const blocksOf = (call: RecordedCall): Json[] => (call.args.view as { blocks: Json[] }).blocks;
const textOf = (call: RecordedCall) => JSON.stringify(blocksOf(call));
const gotIt = (call: RecordedCall): Json | undefined =>
  blocksOf(call)
    .flatMap((b) => b.elements ?? [])
    .find((e: Json) => e.action_id === ACTION.keptSeen);

/** The first views.publish for `user` (of `team`, if given) after the first `after` calls that `ok` accepts. */
async function publishedAfter(
  fake: SlackStack["fake"],
  user: string,
  after: number,
  ok: (call: RecordedCall) => boolean,
  team?: string,
): Promise<RecordedCall> {
  return fake.waitFor(
    () =>
      fake
        .callsOf("views.publish")
        .slice(after)
        .find((c) => c.args.user_id === user && (team === undefined || c.team === team) && ok(c)),
    30_000,
    `a Home tab published for ${user}`,
  );
}

/** Got it on `home` (a tab `ws` published), clicked by `person`: the tab published again without `gone`. */
async function clickGotIt(
  w: WorkspacesStack,
  ws: WorkspacesStack["workspaces"][0],
  home: RecordedCall,
  person: string,
  gone: string,
): Promise<RecordedCall> {
  const button = gotIt(home);
  const n = w.fake.callsOf("views.publish").length;
  await ws.click(
    { action_id: button.action_id, value: button.value },
    { home: true, user: { id: person, name: "p" } },
  );
  return publishedAfter(w.fake, person, n, (c) => !textOf(c).includes(gone), ws.callTeam);
}

describe("a kept outcome's text on the Home tab", () => {
  it("keeps Slack's tokens, escapes the rest once, and is cut without breaking a token", () => {
    expect(safeMrkdwn("<@U0ALICE> sent <!date^1^{time}|then> to <#C1> & a <b> &amp; <https://x.y|x>")).toBe(
      "<@U0ALICE> sent <!date^1^{time}|then> to <#C1> &amp; a &lt;b&gt; &amp; <https://x.y|x>",
    );
    expect(cutMrkdwn("by <@U0ALICE> today", 8)).toBe("by …");
    expect(cutMrkdwn("a &amp; b", 5)).toBe("a …");
    expect(cutMrkdwn("short", 10)).toBe("short");
  });
});

describe("the Home tab's kept outcomes (one workspace)", () => {
  let s: SlackStack;
  const store = () => new UndeliveredOutcomes(s.db, s.switchboard.workspace);

  /** Opens the person's Home tab; the first publish that `ok` accepts (the figures may come in a second one). */
  async function openHome(user: string, ok: (call: RecordedCall) => boolean = () => true) {
    const n = s.fake.callsOf("views.publish").length;
    await s.req.event({ type: "app_home_opened", user, channel: "D0HOME", tab: "home" });
    return publishedAfter(s.fake, user, n, ok);
  }

  /** Got it, clicked on the Home tab that `call` published. */
  async function clickGotIt(call: RecordedCall, user = ALICE) {
    const button = gotIt(call);
    expect(button, "a Got it button").toBeDefined();
    await s.req.blockAction({ action_id: button.action_id, value: button.value }, { home: true, user });
  }

  beforeAll(async () => {
    s = await startStack({ writers: [ALICE.id], slack: { users: [ALICE, BOB], home: { cacheMs: 0 } } });
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  it("shows nothing about them when there are none", async () => {
    const home = await openHome(ALICE.id, (c) => textOf(c).includes("Recent changes"));
    expect(textOf(home)).not.toMatch(/could not tell you/);
    expect(gotIt(home)).toBeUndefined();
  });

  it("lists them at the top, newest first, with when, at most a few and how many more; only to their person", async () => {
    const kept = KEPT_SHOWN + 2;
    for (let i = 1; i <= kept; i++)
      await store().keep(
        ALICE.id,
        `:information_source: Done, but not said in the channel: outcome #${i} for <@U0ALICE> & co (<b>.csv)`,
      );
    const home = await openHome(ALICE.id, (c) => textOf(c).includes("could not tell you"));
    const blocks = blocksOf(home);
    // At the top, before the shortcuts.
    expect(JSON.stringify(blocks[0])).toMatch(/Switchboard could not tell you these earlier\* \(12\)/);
    const top = blocks[0].text.text as string;
    expect(top.length).toBeLessThanOrEqual(3000);
    // Newest first, KEPT_SHOWN of them, each with a Slack date; the mention kept, the text as it was kept.
    expect(top.indexOf(`outcome #${kept} `)).toBeLessThan(top.indexOf(`outcome #${kept - 1} `));
    // Its mention kept, the rest escaped as Slack wants it.
    expect(top).toContain("outcome #3 for <@U0ALICE> &amp; co (&lt;b&gt;.csv)");
    expect(top).not.toContain("outcome #2 ");
    expect(top.match(/<!date\^\d+\^\{date_short_pretty\} \{time\}\|/g)).toHaveLength(KEPT_SHOWN);
    expect(textOf(home)).toContain("and 2 more");
    expect(gotIt(home)?.text.text).toBe("Got it");
    // Bob has none: his tab does not show Alice's.
    const bobs = await openHome(BOB.id, (c) => textOf(c).includes("Recent changes"));
    expect(textOf(bobs)).not.toMatch(/could not tell you|outcome #/);
    await store().dismiss(ALICE.id, Number.POSITIVE_INFINITY);
  });

  it("Got it takes them and publishes the tab again without them; the next command does not say them", async () => {
    await store().keep(ALICE.id, "Done, but not said in the channel: Spring sale sent");
    const home = await openHome(ALICE.id, (c) => textOf(c).includes("Spring sale"));
    expect(textOf(home)).toMatch(/could not tell you this earlier/);
    const n = s.fake.callsOf("views.publish").length;
    await clickGotIt(home);
    // Published again (a publish of the open may still come late: the one without it).
    const again = await publishedAfter(s.fake, ALICE.id, n, (c) => !textOf(c).includes("Spring sale"));
    expect(textOf(again)).not.toMatch(/could not tell you/);
    expect(textOf(again)).toContain("Run the messaging account from Slack");
    expect(await store().list(ALICE.id)).toEqual([]);
    // The next command says only what was kept since, not what Got it took.
    await store().keep(ALICE.id, "Done, but not said in the channel: Autumn import done");
    const sent = await s.req.command("help", { user: ALICE });
    const said = await s.fake.waitFor(
      () =>
        s.fake
          .responsesTo(sent.responseUrl as string)
          .find((r) => /could not tell you/.test(JSON.stringify(r.body))),
      20_000,
      "the kept outcome said with the command",
    );
    expect(JSON.stringify(said.body)).toContain("Autumn import done");
    expect(JSON.stringify(said.body)).not.toContain("Spring sale");
  });

  it("a command that says them publishes the tab again without them", async () => {
    await store().keep(ALICE.id, "Done, but not said in the channel: Winter promo sent");
    await openHome(ALICE.id, (c) => textOf(c).includes("Winter promo"));
    const n = s.fake.callsOf("views.publish").length;
    const sent = await s.req.command("help", { user: ALICE });
    await s.fake.waitFor(
      () =>
        s.fake
          .responsesTo(sent.responseUrl as string)
          .find((r) => /Winter promo/.test(JSON.stringify(r.body))),
      20_000,
      "the kept outcome said with the command",
    );
    const again = await publishedAfter(s.fake, ALICE.id, n, (c) => !textOf(c).includes("Winter promo"));
    expect(textOf(again)).not.toMatch(/could not tell you/);
  });

  it("Got it on an older tab keeps what was kept after it, and shows it", async () => {
    await store().keep(ALICE.id, "Done, but not said in the channel: first outcome");
    const home = await openHome(ALICE.id, (c) => textOf(c).includes("first outcome"));
    // Kept after the tab was published (a later instant than the newest it showed): its Got it did not show it.
    const shown = Number(gotIt(home).value);
    while (Date.now() <= shown) await new Promise((r) => setImmediate(r));
    await store().keep(ALICE.id, "Done, but not said in the channel: second outcome");
    const n = s.fake.callsOf("views.publish").length;
    await clickGotIt(home);
    const again = await publishedAfter(s.fake, ALICE.id, n, (c) => !textOf(c).includes("first outcome"));
    expect(textOf(again)).toContain("second outcome");
    expect(textOf(again)).not.toContain("first outcome");
    expect((await store().list(ALICE.id)).map((o) => o.text)).toEqual([
      "Done, but not said in the channel: second outcome",
    ]);
    await store().dismiss(ALICE.id, Number.POSITIVE_INFINITY);
  });
});

describe("the Home tab's kept outcomes (many workspaces)", () => {
  let w: WorkspacesStack;

  beforeAll(async () => {
    w = await startWorkspacesStack({ teams: 2 });
  }, 90_000);

  afterAll(async () => {
    await w?.close();
  });

  it("each workspace's Home tab shows only its own; Got it takes only the request's workspace's", async () => {
    const [one, two] = w.workspaces as [WorkspacesStack["workspaces"][0], WorkspacesStack["workspaces"][0]];
    const person = one.user.id;
    await new UndeliveredOutcomes(w.db, one.team.teamId).keep(
      person,
      "Done, but not said in the channel: Acme sale sent",
    );
    const open = async (ws: typeof one, ok: (c: RecordedCall) => boolean) => {
      const n = w.fake.callsOf("views.publish").length;
      await ws.req.event({ type: "app_home_opened", user: person, channel: "D0HOME", tab: "home" });
      return publishedAfter(w.fake, person, n, ok, ws.callTeam);
    };
    const home = await open(one, (c) => textOf(c).includes("Acme sale"));
    expect(textOf(home)).toMatch(/could not tell you this earlier/);
    // The same person id in the other workspace: only that workspace's.
    await new UndeliveredOutcomes(w.db, two.team.teamId).keep(
      person,
      "Done, but not said in the channel: Bolt import done",
    );
    const other = await open(two, (c) => textOf(c).includes("Bolt import"));
    expect(textOf(other)).not.toContain("Acme sale");
    // Got it there takes that workspace's, nothing of the other's.
    await clickGotIt(w, two, other, person, "Bolt import");
    expect(await new UndeliveredOutcomes(w.db, two.team.teamId).list(person)).toEqual([]);
    expect((await new UndeliveredOutcomes(w.db, one.team.teamId).list(person)).length).toBe(1);
    // From its own workspace, it does.
    const again = await clickGotIt(w, one, home, person, "Acme sale");
    expect(textOf(again)).not.toContain("Acme sale");
    expect(await new UndeliveredOutcomes(w.db, one.team.teamId).list(person)).toEqual([]);
  });
});

describe("the Home tab's kept outcomes (a workspace not connected)", () => {
  let w: WorkspacesStack;

  beforeAll(async () => {
    w = await startWorkspacesStack({ teams: 1, connect: "none" });
  }, 90_000);

  afterAll(async () => {
    await w?.close();
  });

  it("are shown above how to connect it, and Got it takes them", async () => {
    const [one] = w.workspaces as [WorkspacesStack["workspaces"][0]];
    const person = one.user.id;
    // Kept while it was connected (its key since removed): an import the API took.
    await new UndeliveredOutcomes(w.db, one.team.teamId).keep(
      person,
      "Done, but not said in the channel: the import of spring.csv finished",
    );
    const n = w.fake.callsOf("views.publish").length;
    await one.req.event({ type: "app_home_opened", user: person, channel: "D0HOME", tab: "home" });
    const home = await publishedAfter(
      w.fake,
      person,
      n,
      (c) => textOf(c).includes("spring.csv"),
      one.callTeam,
    );
    expect(textOf(home)).toMatch(/could not tell you this earlier/);
    expect(textOf(home)).toMatch(/not connected|Connect/);
    // Above the connect part, as on a connected workspace's tab.
    expect(textOf(home).indexOf("spring.csv")).toBeLessThan(textOf(home).search(/Connect/));
    const again = await clickGotIt(w, one, home, person, "spring.csv");
    expect(textOf(again)).toMatch(/Connect/);
    expect(await new UndeliveredOutcomes(w.db, one.team.teamId).list(person)).toEqual([]);
  });
});
