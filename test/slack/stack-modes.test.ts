// The test stack itself (test/helpers/stack.ts): by default two workspaces of
// one many-workspace deployment, A (driven by the test) and B, each with its
// own Slack team and sandbox organization, with Slack driven or not (the
// command-core suites drive A's core alone); single mode only when asked. And
// the tenancy check the suites end with (expectNothingInB) fails once B is
// given anything.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { expectNothingInB, TEAM_B } from "../helpers/stack-many.ts";

describe("the test stack's default: two workspaces, A and B", () => {
  let s: SlackStack;
  beforeAll(async () => {
    s = await startStack({ writers: ["U0ALICE"], slack: {} });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it("drives A, the fake's own team, in many-workspace mode; B is another team with its own organization", async () => {
    expect(s.mode).toBe("many");
    expect(s.workspace).toBe(s.fake.teamId);
    expect(s.b?.team.teamId).toBe(TEAM_B.teamId);
    expect(s.b?.org.apiKey).not.toBe(s.apiKey);
    expect(await s.switchboard.deployment.connectedIds()).toEqual(
      expect.arrayContaining([s.workspace, TEAM_B.teamId]),
    );
    // A new tag is announced in the channel it was made in: A's #general, by A's bot.
    await s.req.command("tag add vipa #FF0000", { user: { id: "U0ALICE", name: "alice" } });
    const announced = await s.fake.waitFor(() => s.fake.messages.find((m) => /vipa/.test(m.text ?? "")));
    expect(announced).toMatchObject({ channel: "C0GENERAL", team: s.workspace });
    expect((await s.client.listTags()).items.map((t) => t.name)).toContain("vipa");
    expect((await s.b!.api.listTags()).items.map((t) => t.name)).not.toContain("vipa");
    await expectNothingInB(s);
  });

  it("B's own writes land in B's organization, and the tenancy check then fails", async () => {
    const b = s.b!;
    await b.req.command("tag add vipb #00FF00", { user: b.user });
    const announced = await s.fake.waitFor(() => s.fake.messages.find((m) => /vipb/.test(m.text ?? "")));
    expect(announced).toMatchObject({ channel: b.general, team: b.team.teamId });
    expect((await b.api.listTags()).items.map((t) => t.name)).toContain("vipb");
    expect((await s.client.listTags()).items.map((t) => t.name)).not.toContain("vipb");
    await expect(expectNothingInB(s)).rejects.toThrow();
  });
});

describe("without Slack driven: the same two workspaces, the test driving A's core", () => {
  it("is many-workspace mode: A's core writes in A's organization, B sees nothing", async () => {
    const s = await startStack({ writers: ["U0ALICE"] });
    try {
      expect(s.mode).toBe("many");
      expect(s.workspace).toBe(s.fake?.teamId);
      expect(s.b?.team.teamId).toBe(TEAM_B.teamId);
      expect(s.b?.org.apiKey).not.toBe(s.apiKey);
      const alice = { userId: "U0ALICE", userName: "alice", via: "slack", channelId: "C0GENERAL" } as const;
      const r = await s.core.run("tag add vipc #0000FF", alice);
      expect(r.text).toMatch(/vipc/);
      expect((await s.client.listTags()).items.map((t) => t.name)).toContain("vipc");
      expect((await s.b!.api.listTags()).items.map((t) => t.name)).not.toContain("vipc");
      await expectNothingInB(s);
    } finally {
      await s.close();
    }
  });
});

describe("single mode, when asked", () => {
  it("is the environment's one installation (workspace env), with no workspace B", async () => {
    const s = await startStack({ mode: "single", slack: {} });
    try {
      expect(s.mode).toBe("single");
      expect(s.workspace).toBe(ENV_WORKSPACE);
      expect(s.b).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
