// Times people type (issue 37 §3), through the core, the real client and the
// sandbox (behind the counting proxy): `send at=` and `campaign add at=` with
// a date that does not exist or more than a year away are refused in words,
// nothing held, nothing sent, no campaign made; the quiet hours refused in
// the words the campaign form uses too (startTimeProblem). The clock is the test's.
import { describe, expect, it } from "vitest";
import { startRulesOf } from "../../src/domain/start-time.ts";
import { HeldStarts } from "../../src/store/held-starts.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { all, useHarness } from "./helpers.ts";

const h = useHarness();
const ANA = { userId: "U0ANA", via: "slack" as const, channelId: "C0GENERAL" };
const NOW = new Date("2026-11-27T10:00:00Z"); // 11:00 in Paris
const PARIS = startRulesOf("Europe/Paris", "21:00-08:00");

const requests = (what: RegExp) => h().forwarder.requests.filter((r) => what.test(r)).length;

async function draft(name: string, core = h().core): Promise<number> {
  const r = await core.run(`campaign add ${name} template=1 group=1 first_name=a order_id=b`, ANA);
  const m = /campaign #(\d+)/i.exec(r.text);
  if (!m) throw new Error(`no campaign made: ${r.text}`);
  return Number(m[1]);
}

describe("send at= a time that does not exist", () => {
  it("2027-02-30T09:00:00Z is refused in words, not read as 2 March; nothing held, nothing sent", async () => {
    const core = h().newCore({ now: () => NOW });
    const id = await draft("Thirtieth", core);
    const r = await core.run(`campaign ${id} send at=2027-02-30T09:00:00Z`, ANA);
    expect(r.confirmation).toBeUndefined();
    expect(all(r)).toContain(
      "The start time 2027-02-30T09:00:00Z is not a date that exists: February 2027 has 28 days.",
    );
    expect(all(r)).not.toMatch(/2027-03-02|Starts at|Start at/);
    expect(await new HeldStarts(h().db, h().workspace).ofCampaign(id)).toBeUndefined();
    expect(requests(new RegExp(`^POST /v1/campaigns/${id}/send`))).toBe(0);
  });

  it('24:00 and "2027-02-30 09:00" in the workspace\'s zone are refused the same way', async () => {
    const core = h().newCore({ now: () => NOW, startRules: PARIS });
    const id = await draft("Midnight", core);
    for (const [at, words] of [
      ["24:00", "The start time 24:00 is not a time of day that exists: a day runs from 00:00 to 23:59."],
      [
        `"2027-02-30 09:00"`,
        "The start time 2027-02-30 09:00 is not a date that exists: February 2027 has 28 days.",
      ],
    ] as const) {
      const r = await core.run(`campaign ${id} send at=${at}`, ANA);
      expect(r.confirmation, at).toBeUndefined();
      expect(all(r), at).toContain(words);
    }
    expect(await new HeldStarts(h().db, h().workspace).ofCampaign(id)).toBeUndefined();
  });
});

describe("a start more than a year away", () => {
  it('send at=9999-12-31T23:59:59Z: "9999-12-31 is more than a year away", never 10000-01-01', async () => {
    const core = h().newCore({ now: () => NOW, startRules: PARIS });
    const id = await draft("Far", core);
    const r = await core.run(`campaign ${id} send at=9999-12-31T23:59:59Z`, ANA);
    expect(r.confirmation).toBeUndefined();
    expect(all(r)).toContain("The start time 9999-12-31 is more than a year away");
    expect(all(r)).not.toContain("10000");
    expect(await new HeldStarts(h().db, h().workspace).ofCampaign(id)).toBeUndefined();
  });

  it("campaign add at= more than a year away makes no campaign", async () => {
    const core = h().newCore({ now: () => NOW });
    const before = requests(/^POST \/v1\/campaigns$/);
    const r = await core.run(
      "campaign add Later template=1 group=1 first_name=a order_id=b at=2028-06-01T09:00:00Z",
      ANA,
    );
    expect(all(r)).toContain("The start time 2028-06-01 is more than a year away");
    expect(requests(/^POST \/v1\/campaigns$/)).toBe(before);
  });
});

describe("a start time chosen in a form (the core's startTimeProblem)", () => {
  it("says startAtOf's words: the quiet hours, too far, the past; a time outside them is allowed", () => {
    const core = h().newCore({ now: () => NOW, startRules: PARIS });
    // 23:00 in Paris: in the quiet hours, said as `send at=` says it.
    const quiet = core.startTimeProblem?.(new Date("2026-11-27T22:00:00Z"));
    expect(quiet).toBe(
      "The start time 2026-11-27T23:00:00+01:00 is in the quiet hours (21:00-08:00, Europe/Paris): choose a time from 08:00, or ask an admin to change the quiet hours.",
    );
    expect(core.startTimeProblem?.(new Date("2028-06-01T09:00:00Z"))).toMatch(
      /^The start time 2028-06-01 is more than a year away/,
    );
    expect(core.startTimeProblem?.(new Date("2026-11-27T09:00:00Z"))).toMatch(/is in the past/);
    expect(core.startTimeProblem?.(new Date("2026-11-28T09:00:00Z"))).toBeUndefined();
  });
});

itLeavesBUntouched(h);
