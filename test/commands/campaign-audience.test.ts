// The audience, counted, before anyone confirms a send (issue 28 §1): whom the
// campaign reaches, its opted-out left out, within 10 API reads a prompt; no
// audience or a group gone refused before the prompt, in words; a campaign
// made elsewhere whose record shows no audience said so; an overlap with a
// campaign started in the last 24 hours flagged from the store.
import { beforeAll, describe, expect, it } from "vitest";
import { audienceLine } from "../../src/campaigns/audience.ts";
import type { Reply } from "../../src/commands/types.ts";
import { CampaignAudiences } from "../../src/store/campaigns.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { all, expectSlackValid, SLACK_USER } from "./helpers.ts";

/** Campaigns whose record the proxy strips of its audience (as a real API's may show none). */
const hidden = new Set<number>();
/** While true, the proxy strips the groups' member counts. */
let noMemberCounts = false;

const stack = useStack({
  sandbox: { campaignTickMs: 0, readLimit: 100_000, writeLimit: 100_000 },
  sandboxDb: "own",
  proxy: {
    rewrite: (method, url, body) => {
      if (method !== "GET") return body;
      const m = /^\/v1\/campaigns\/(\d+)$/.exec(url);
      if (m && hidden.has(Number(m[1]))) {
        const { groupIds: _g, contactIds: _c, ...rest } = JSON.parse(body);
        return JSON.stringify(rest);
      }
      if (noMemberCounts && url.startsWith("/v1/contact-groups"))
        return body.replace(/"memberCount":\d+,?/g, "");
      return body;
    },
  },
  env: {
    API_READ_LIMIT: "100000",
    API_WRITE_LIMIT: "100000",
    MESSAGING_CHANNEL_ID: "1",
    DEFAULT_COUNTRY: "US",
  },
});

const run = async (line: string): Promise<Reply> => {
  const reply = await stack().core.run(line, SLACK_USER);
  expectSlackValid(reply);
  return reply;
};

/** Runs a line and gives the API requests it made. */
const counted = async (line: string) => {
  const seen = stack().proxy!.seen;
  const before = seen.length;
  const reply = await run(line);
  return { reply, requests: seen.slice(before) };
};

const reads = (requests: string[]) => requests.filter((r) => r.startsWith("GET "));
const writes = (requests: string[]) => requests.filter((r) => !r.startsWith("GET "));
const idOf = (r: Reply) => Number(/campaign #(\d+)/i.exec(r.text)?.[1]);

// The seed: VIP customers (#1, 6 members, none opted out), Newsletter (#2, 16, 3 opted out),
// Spain (#3, 4, none); four contacts have opted out.
let newsletter: number;
let vip: number;
/** Contacts: opted out, and not. */
let out: number[];
let active: number[];
beforeAll(async () => {
  const { client } = stack();
  out = (await client.listContacts({ optedOut: true, limit: 100 })).items.map((c) => Number(c.id));
  active = (await client.listContacts({ optedOut: false, limit: 100 })).items.map((c) => Number(c.id));
  const groups = (await client.listGroups()).items;
  newsletter = Number(groups.find((g) => g.name === "Newsletter")!.id);
  vip = Number(groups.find((g) => g.name === "VIP customers")!.id);
});

const add = async (name: string, audience: string) => {
  const r = await run(`campaign add ${name} template=1 ${audience} first_name=friend order_id=X1`);
  expect(r.text, all(r)).toMatch(/campaign #\d+/);
  return idOf(r);
};

describe("the send prompt counts the audience", () => {
  it("groups and contacts: at most (groups may share people), the opted-out left out, within 10 reads", async () => {
    const id = await add(
      "Counted",
      `group=${newsletter},${vip} contacts=${out[0]},${active[0]},${active[1]}`,
    );
    const { reply, requests } = await counted(`campaign ${id} send`);
    expect(reply.confirmation).toBeDefined();
    // 16 + 6 + 3 chosen; 3 of Newsletter and one chosen contact opted out: at most 21.
    expect(all(reply)).toContain(
      "At most 21 people: *Newsletter* (16), *VIP customers* (6), 3 contacts chosen one by one · 4 have opted out and are left out",
    );
    expect(reply.text).toMatch(/^Send campaign #\d+ Counted\?.*At most 21 people/);
    expect(reads(requests).length, requests.join("\n")).toBeLessThanOrEqual(10);
    expect(writes(requests)).toEqual([]);
  });

  it("one group: an exact figure", async () => {
    const id = await add("One group", `group=${newsletter}`);
    const { reply, requests } = await counted(`campaign ${id} send`);
    expect(all(reply)).toContain("13 people: *Newsletter* (16) · 3 have opted out and are left out");
    expect(all(reply)).not.toMatch(/At most|At least|About/);
    expect(reads(requests).length).toBeLessThanOrEqual(10);
  });

  it("the draft's card says it too", async () => {
    const r = await run(`campaign add Carded template=1 group=${vip} first_name=friend order_id=X1`);
    expect(r.text).toMatch(/Draft campaign \*Carded\* created\. 6 people: \*VIP customers\* \(6\)/);
  });

  it("more groups than the reads allow: still at most 10 reads, and 'at least' for the opted-out not read", async () => {
    const { client } = stack();
    const groups: number[] = [];
    for (let i = 0; i < 12; i++) {
      const g = await client.createGroup({ name: `Budget ${i}` });
      await client.addGroupContacts(Number(g.id), [active[0]!, active[1]!]);
      groups.push(Number(g.id));
    }
    const id = await add("Many groups", `group=${groups.join(",")}`);
    const { reply, requests } = await counted(`campaign ${id} send`);
    expect(reads(requests).length, requests.join("\n")).toBeLessThanOrEqual(10);
    const shown = all(reply);
    expect(shown).toMatch(/At most \d+ people: \*Budget 0\* \(2\)/);
    expect(shown).toMatch(/ · at least \d+ have opted out and are left out/);
  });

  it("a group without a member count is counted through its members' list, else 'at least'", async () => {
    noMemberCounts = true;
    try {
      const id = await add("No counts", `group=${vip}`);
      const { reply, requests } = await counted(`campaign ${id} send`);
      expect(all(reply)).toContain("6 people: *VIP customers* (6)");
      expect(reads(requests).length).toBeLessThanOrEqual(10);
    } finally {
      noMemberCounts = false;
    }
  });
});

describe("refused before the prompt, in words", () => {
  it("no audience at all: no prompt, nothing written", async () => {
    const add = await run("campaign add Nobody here template=2 tag=1");
    const id = idOf(add);
    const { reply, requests } = await counted(`campaign ${id} send`);
    expect(reply.confirmation).toBeUndefined();
    expect(reply.text).toMatch(
      /\*Nobody here\* has no audience: it names no group and no contact, so there is nobody to send it to/,
    );
    expect(writes(requests)).toEqual([]);
    expect((await stack().client.getCampaign(id)).status).toBe("draft");
  });

  it("a group that no longer exists: said so, not 'No such campaign'", async () => {
    const { client } = stack();
    const g = await client.createGroup({ name: "Short lived" });
    await client.addGroupContacts(Number(g.id), [active[0]!]);
    const id = await add("Spring sale", `group=${g.id}`);
    await client.deleteGroup(Number(g.id));
    const { reply, requests } = await counted(`campaign ${id} send`);
    expect(reply.confirmation).toBeUndefined();
    expect(reply.text).toContain(
      `*Spring sale*'s group #${g.id} no longer exists: the campaign cannot be counted or sent as it is`,
    );
    expect(reply.text).not.toMatch(/No such campaign/);
    expect(writes(requests)).toEqual([]);
  });
});

describe("an audience only Switchboard knows", () => {
  it("a campaign made elsewhere whose record shows no audience: 'audience not known to Switchboard'", async () => {
    const c = await stack().client.createCampaign({
      name: "Made elsewhere",
      integrationId: 1,
      templateId: 2,
      groupIds: [newsletter],
    });
    hidden.add(Number(c.id));
    const { reply } = await counted(`campaign ${c.id} send`);
    expect(reply.confirmation).toBeDefined();
    expect(all(reply)).toMatch(/Audience not known to Switchboard/);
    expect(all(reply)).not.toMatch(/\d+ people/);
  });

  it("one Switchboard made is counted from what it kept", async () => {
    const id = await add("Made here", `group=${newsletter}`);
    hidden.add(id);
    const { reply } = await counted(`campaign ${id} send`);
    expect(all(reply)).toContain("13 people: *Newsletter* (16)");
  });
});

describe("an audience that got another campaign lately", () => {
  it("flags a group a campaign started in the last 24 hours also got, from the store alone", async () => {
    const first = await add("Early bird", `group=${newsletter},${vip}`);
    const ask = await run(`campaign ${first} send`);
    const sent = await stack().core.confirm(ask.confirmation!.id, SLACK_USER);
    expect(sent.text).toMatch(/Early bird: sending/);

    // Started 3 hours ago by this workspace, 30 hours ago, and by another workspace: only the first two are its, only one recent.
    const audiences = new CampaignAudiences(stack().db, stack().workspace);
    const hours = (n: number) => new Date(Date.now() - n * 3_600_000);
    await audiences.record(9001, "Spring sale", { groupIds: [newsletter], contactIds: [] });
    await audiences.started(9001, "Spring sale", hours(3));
    await audiences.started(9002, "Old news", hours(30), { groupIds: [newsletter], contactIds: [] });
    await new CampaignAudiences(stack().db, "T0OTHER").started(9003, "Not ours", hours(1), {
      groupIds: [newsletter],
      contactIds: [],
    });

    const second = await add("Follow up", `group=${newsletter} contacts=${active[2]}`);
    const before = stack().proxy!.seen.length;
    const { reply, requests } = await counted(`campaign ${second} send`);
    const shown = all(reply);
    expect(shown).toContain("*Newsletter* also got *Early bird* just now");
    expect(shown).toContain("*Newsletter* also got *Spring sale* 3 hours ago");
    expect(shown).not.toMatch(/Old news|Not ours|VIP customers\* also/);
    expect(reads(requests).length).toBeLessThanOrEqual(10);
    expect(stack().proxy!.seen.length - before).toBe(requests.length);
  });
});

describe("the audience's words", () => {
  const group = (name: string, members: number | undefined, optedOut = 0, optedOutExact = true) => ({
    id: 1,
    name,
    members,
    optedOut,
    optedOutExact,
  });
  const none = { contacts: 0, contactsOptedOut: 0, contactsOptedOutExact: true };

  it("exact for one source, at most for several or an opted-out count not read, at least for a group not counted", () => {
    expect(audienceLine({ groups: [group("A", 10, 1)], ...none })).toBe(
      "9 people: *A* (10) · 1 has opted out and is left out",
    );
    expect(audienceLine({ groups: [group("A", 1)], ...none })).toBe("1 person: *A* (1)");
    expect(audienceLine({ groups: [group("A", 10, 1, false)], ...none })).toBe(
      "At most 9 people: *A* (10) · at least 1 have opted out and are left out",
    );
    expect(
      audienceLine({
        groups: [group("A", 1180, 31), group("B", 64)],
        contacts: 3,
        contactsOptedOut: 1,
        contactsOptedOutExact: true,
      }),
    ).toBe(
      "At most 1,215 people: *A* (1,180), *B* (64), 3 contacts chosen one by one · 32 have opted out and are left out",
    );
    expect(audienceLine({ groups: [group("A", undefined), group("B", 64, 4)], ...none })).toBe(
      "At least 60 people: *A* (not counted now), *B* (64) · 4 have opted out and are left out",
    );
    expect(audienceLine({ groups: [group("A", undefined)], ...none })).toMatch(/^Not counted/);
  });
});

itLeavesBUntouched(stack);
