// Bolt's listener clients, bounded in many-workspace mode (src/slack/tenancy/client-cache.ts):
// the most recently used workspaces only, each with its latest token's client.
import { describe, expect, it } from "vitest";
import { boundBoltClients } from "../../src/slack/tenancy/client-cache.ts";
import {
  botTokenOf,
  madeOnFirstUse,
  TokenSourcedClient,
  workspaceClient,
} from "../../src/slack/tenancy/workspace-client.ts";
import { FakeSlack } from "../fakes/slack.ts";

/** What Bolt's App does with `this.clients` (App.js: WebClientPool, getOrCreate). */
class Pool {
  pool: Record<string, object> = {};
  getOrCreate(token: string): object {
    this.pool[token] ??= { token };
    return this.pool[token];
  }
}
function clientFor(app: { clients: Record<string, Pool | undefined> }, team: string, token: string) {
  let pool = app.clients[team];
  if (pool === undefined) pool = app.clients[team] = new Pool();
  return pool.getOrCreate(token);
}

describe("Bolt's client cache, bounded", () => {
  it("keeps the most recently used workspaces, each with its latest token only", () => {
    const app = { clients: {} as Record<string, Pool | undefined> };
    boundBoltClients(app, 2);
    const a1 = clientFor(app, "TA", "xoxb-a-1");
    expect(clientFor(app, "TA", "xoxb-a-1")).toBe(a1);
    clientFor(app, "TB", "xoxb-b-1");
    clientFor(app, "TA", "xoxb-a-1"); // A used again: B is now the oldest
    clientFor(app, "TC", "xoxb-c-1");
    expect(Object.keys(app.clients).sort()).toEqual(["TA", "TC"]);
    // A rotated token: the earlier token's client goes.
    clientFor(app, "TA", "xoxb-a-2");
    expect(Object.keys(app.clients.TA!.pool)).toEqual(["xoxb-a-2"]);
  });

  it("hands out a workspace's own client when it has one, and keeps none of Bolt's for it", () => {
    const app = { clients: {} as Record<string, Pool | undefined> };
    const own = { mine: true };
    boundBoltClients(app, 10, (team) => (team === "TA" ? own : undefined));
    clientFor(app, "TB", "xoxb-b-1");
    expect(clientFor(app, "TA", "xoxb-a-1")).toBe(own);
    expect(Object.keys(app.clients.TA!.pool)).toHaveLength(0);
    expect(Object.keys(app.clients.TB!.pool)).toEqual(["xoxb-b-1"]);
  });

  it("without the bound, the same use keeps every workspace and every token (what Bolt does)", () => {
    const app = { clients: {} as Record<string, Pool | undefined> };
    for (const team of ["TA", "TB", "TC"]) clientFor(app, team, `xoxb-${team}-1`);
    clientFor(app, "TA", "xoxb-TA-2");
    expect(Object.keys(app.clients)).toHaveLength(3);
    expect(Object.keys(app.clients.TA!.pool)).toHaveLength(2);
  });
});

describe("a workspace's bot client (workspace-client.ts)", () => {
  it("is made at its first use, then calls Slack with the token of the moment", async () => {
    const fake = await FakeSlack.start();
    try {
      const before = TokenSourcedClient.made;
      const clients = Array.from({ length: 50 }, () =>
        workspaceClient(async () => fake.botToken, { slackApiUrl: fake.apiUrl, teamId: fake.teamId }),
      );
      // 50 workspaces' clients handed out (to Bolt, to the runtime): none made.
      expect(TokenSourcedClient.made).toBe(before);
      expect(clients[0]).toBeInstanceOf(TokenSourcedClient);
      const me = await clients[0]!.auth.test();
      expect(me.team_id).toBe(fake.teamId);
      expect(await botTokenOf(clients[0]!)).toBe(fake.botToken);
      expect(TokenSourcedClient.made).toBe(before + 1);
      // The same client the next time.
      await clients[0]!.auth.test();
      expect(TokenSourcedClient.made).toBe(before + 1);
    } finally {
      await fake.close();
    }
  });

  it("any object made on first use: nothing made until read, written or asked; made once; methods bound to it", () => {
    let made = 0;
    class Counter {
      n = 0;
      bump() {
        this.n += 1;
        return this.n;
      }
    }
    const stand = madeOnFirstUse(() => {
      made += 1;
      return new Counter();
    });
    expect(made).toBe(0);
    const { bump } = stand;
    expect(bump()).toBe(1);
    expect(stand.bump()).toBe(2);
    expect("n" in stand).toBe(true);
    stand.n = 10;
    expect(stand.n).toBe(10);
    expect(made).toBe(1);
    // Without a prototype it is not an instance of the class; with one, it is, before it is made.
    expect(stand).not.toBeInstanceOf(Counter);
    expect(madeOnFirstUse(() => new Counter(), Counter.prototype)).toBeInstanceOf(Counter);
  });
});
