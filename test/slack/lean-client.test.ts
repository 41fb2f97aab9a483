// A workspace's bot client keeps only the Web API namespaces it uses (src/slack/io/lean-client.ts, issue 38 §7):
// a WebClient binds ~280 methods when made, ~26 KiB a workspace that asks Slack anything (`/sb help`'s users.info).
// Each client's calls still go with its own token, through its own apiCall, against the fake Slack over HTTP.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { webApi } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { TokenSourcedClient } from "../../src/slack/tenancy/workspace-client.ts";
import { FakeSlack } from "../fakes/slack.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** An installed team's bot token, as an install gets it (a code, then oauth.v2.access). */
async function installed(fake: FakeSlack, teamId: string): Promise<string> {
  const team = fake.addTeam({ teamId, rotation: false });
  const oauth = new webApi.WebClient(undefined, { slackApiUrl: fake.apiUrl });
  const grant = await oauth.oauth.v2.access({
    client_id: fake.clientId,
    client_secret: fake.clientSecret,
    code: fake.authorizeCode(team),
  });
  return grant.access_token as string;
}

const clientOf = (fake: FakeSlack, token: string, teamId: string) =>
  new TokenSourcedClient(async () => token, { slackApiUrl: fake.apiUrl, teamId });

describe("a workspace's lean bot client", () => {
  it("keeps no bound method namespace of its own until it reads one, then only that one", async () => {
    const fake = await FakeSlack.start();
    try {
      const client = clientOf(fake, fake.botToken, fake.teamId);
      for (const namespace of ["admin", "chat", "users", "views", "conversations"])
        expect(Object.hasOwn(client, namespace)).toBe(false);
      fake.addUser({ id: "ULEAN", name: "ada" });
      const { user } = await client.users.info({ user: "ULEAN" });
      expect(user?.name).toBe("ada");
      // The same namespace at each read, nested ones included; a method of the client's own (files.uploadV2) too.
      expect(client.users).toBe(client.users);
      expect(typeof client.users.profile.get).toBe("function");
      expect(typeof client.files.uploadV2).toBe("function");
      expect(typeof client.admin.apps.approve).toBe("function");
    } finally {
      await fake.close();
    }
  });

  it("two workspaces' clients each call with their own token, their namespaces their own", async () => {
    const fake = await FakeSlack.start();
    try {
      const a = clientOf(fake, await installed(fake, "TLEANA"), "TLEANA");
      const b = clientOf(fake, await installed(fake, "TLEANB"), "TLEANB");
      expect(a.users).not.toBe(b.users);
      expect(a.chat.postMessage).not.toBe(b.chat.postMessage);
      // A namespace function read from one client, called later, is still that client's.
      const postAsB = b.chat.postMessage;
      await a.chat.postMessage({ channel: fake.generalOf("TLEANA"), text: "from A" });
      await postAsB({ channel: fake.generalOf("TLEANB"), text: "from B" });
      const posts = fake.callsOf("chat.postMessage");
      expect(posts.map((c) => [c.team, c.args.text])).toEqual([
        ["TLEANA", "from A"],
        ["TLEANB", "from B"],
      ]);
      expect((await a.auth.test()).team_id).toBe("TLEANA");
      expect((await b.auth.test()).team_id).toBe("TLEANB");
    } finally {
      await fake.close();
    }
  });

  it("costs a few KiB of heap a client that has used a namespace, not a WebClient's ~26 KiB", () => {
    const n = 500;
    gc();
    const before = process.memoryUsage().heapUsed;
    const clients = Array.from({ length: n }, (_, i) => {
      const client = new TokenSourcedClient(async () => `xoxb-${i}`, { teamId: `T${i}` });
      void client.users.info;
      return client;
    });
    gc();
    const perClient = (process.memoryUsage().heapUsed - before) / n;
    expect(clients).toHaveLength(n);
    expect(perClient).toBeLessThan(8 * 1024);
  });
});
