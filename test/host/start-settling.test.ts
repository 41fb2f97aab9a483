// What an earlier process left at its death is settled at the next start in
// many-workspace mode too, for every workspace the deployment holds (issue 38
// §1): a Confirm it was carrying out (kill -9) is settled unknown and its
// clicker told, in each workspace with that workspace's own answer; the upload
// files it left behind are removed. Two workspaces, and the next start is a
// new composition on the same database with its Slack app.
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManyWorkspaceSwitchboard } from "../../src/host/app.ts";
import type { ManyWorkspaceSwitchboard } from "../../src/host/many-workspaces.ts";
import { UPLOAD_TEMP_ROOT } from "../../src/imports/temp.ts";
import { type SlackApp, startSlackApp } from "../../src/slack/app.ts";
import { Confirmations } from "../../src/store/confirmations.ts";
import {
  type StackWorkspace,
  startWorkspacesStack,
  type WorkspacesStack,
} from "../helpers/workspaces-stack.ts";

let s: WorkspacesStack;
let next: { sb: ManyWorkspaceSwitchboard; slack: SlackApp } | undefined;

beforeAll(async () => {
  s = await startWorkspacesStack({ teams: 2, connect: "key" });
}, 60_000);

afterAll(async () => {
  await next?.slack.stop();
  await next?.sb.close();
  await s?.close();
});

/** A Confirm of `campaign <id> send` clicked a minute ago in `ws`, whose process was then killed: left running. */
async function interrupted(ws: StackWorkspace, campaignId: number) {
  const confirmations = new Confirmations(s.db, ws.team.teamId);
  const c = await confirmations.create({
    actor: ws.user.id,
    command: { id: "campaign.send", raw: { id: campaignId }, line: `campaign ${campaignId} send` },
    ttlMs: 15 * 60_000,
  });
  const responseUrl = s.fake.newResponseUrl();
  await confirmations.keepReplyTarget(c.id, {
    user: ws.user.id,
    responseUrl,
    at: new Date(Date.now() - 60_000).toISOString(),
  });
  expect(await confirmations.claim(c.id, ws.user.id)).toBeTruthy();
  return { id: c.id, responseUrl };
}

type Block = { type: string; elements?: Array<{ value?: string }> };
const buttons = (blocks: unknown) =>
  ((blocks as Block[] | undefined) ?? []).flatMap((b) => (b.type === "actions" ? (b.elements ?? []) : []));

describe("the next start in many-workspace mode", () => {
  it("settles each workspace's interrupted Confirm and tells its clicker, and removes stale uploads", async () => {
    const [a, b] = s.workspaces as [StackWorkspace, StackWorkspace];
    const inA = await interrupted(a, 7);
    const inB = await interrupted(b, 8);
    // An upload's scratch folder of a process that is gone (no such pid).
    const stale = join(UPLOAD_TEMP_ROOT, "999999999-left-by-a-crash");
    await mkdir(stale, { recursive: true });

    // The next start: another process on the same database composes and starts its Slack app.
    const sb = await createManyWorkspaceSwitchboard(s.config, { logger: s.logger, db: s.db });
    next = {
      sb,
      slack: await startSlackApp(sb, s.config, s.logger, { listen: { port: 0, host: "127.0.0.1" } }),
    };

    for (const [ws, left, campaign] of [
      [a, inA, "campaign 7"],
      [b, inB, "campaign 8"],
    ] as const) {
      expect((await new Confirmations(s.db, ws.team.teamId).get(left.id))?.state).toBe("unknown");
      const told = await s.fake.waitForResponse(left.responseUrl, 1, 20_000);
      expect(String(told.body.text)).toMatch(/Switchboard stopped while carrying it out/);
      // Its own workspace's confirmation, read by its own core: the check names its campaign.
      expect(buttons(told.body.blocks).map((x) => x.value)).toEqual([campaign]);
    }
    await expect(stat(stale)).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
