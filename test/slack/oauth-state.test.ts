// "Add to Slack"'s state is good once and for ten minutes, wherever it was
// issued (the store keeps it), and no OAuth code reaches a log line, even at
// trace level. Real HTTP: the install routes on loopback, the fake Slack's
// consent and oauth.v2.access.

import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/platform/log.ts";
import { dbStateStore, STATE_TTL_MS } from "../../src/slack/tenancy/oauth.ts";
import type { Installations } from "../../src/store/installations.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import type { TestDb } from "../helpers/db.ts";
import { type OAuthLoopback, startOAuthLoopback } from "../helpers/oauth.ts";

let h: OAuthLoopback;
let fake: FakeSlack;
let db: TestDb;
let store: Installations;
let base = "";
const lines: string[] = [];
// The process's own logger (its redaction included), at trace level, into `lines`.
const logger = createLogger(
  "trace",
  new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  }),
);

beforeAll(async () => {
  h = await startOAuthLoopback({ logger, onRequest: (url) => logger.trace({ url }, "request") });
  ({ fake, db, store, base } = h);
}, 60_000);
afterAll(() => h?.close());

/** The install page: Slack's consent URL (with the state) and the state cookie of this browser. */
async function installLink(): Promise<{ href: string; cookie: string }> {
  const res = await fetch(`${base}/slack/install`);
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
  const href = /href="([^"]+)"/.exec(await res.text())![1]!.replaceAll("&amp;", "&");
  return { href, cookie };
}

/** Slack's consent at `href` for `team`: the redirect back, with a fresh code and the link's state. */
async function consent(href: string, team: string): Promise<string> {
  const slack = await fetch(`${href}&team=${team}`, { redirect: "manual" });
  expect(slack.status).toBe(302);
  return slack.headers.get("location")!;
}

const codes: string[] = [];
async function redirect(url: string, cookie: string): Promise<{ status: number; page: string }> {
  codes.push(new URL(url).searchParams.get("code")!);
  const res = await fetch(url, { headers: { cookie } });
  return { status: res.status, page: await res.text() };
}

describe("the OAuth state", () => {
  it("is good once: the same state and cookie, replayed with a new code, install nothing", async () => {
    fake.addTeam({ teamId: "TFIRST", teamName: "First" });
    fake.addTeam({ teamId: "TSECOND", teamName: "Second" });
    const { href, cookie } = await installLink();
    const first = await redirect(await consent(href, "TFIRST"), cookie);
    expect(first.status).toBe(200);
    expect(first.page).toContain("installed in First");

    // Slack's consent again with the same link: a new, good code, and the used state.
    const replay = await redirect(await consent(href, "TSECOND"), cookie);
    expect(replay.status).toBe(400);
    expect(replay.page).toContain("Switchboard was not installed");
    expect(await store.find({ isEnterpriseInstall: false, teamId: "TSECOND" })).toBeUndefined();
    expect(await store.find({ isEnterpriseInstall: false, teamId: "TFIRST" })).toBeDefined();
  });

  it("is taken by whichever process gets the redirect, once, and kept only hashed", async () => {
    const issuing = dbStateStore(db);
    const other = dbStateStore(db);
    const now = new Date();
    const state = await issuing.generateStateParam({ scopes: ["commands"], metadata: "m" }, now);
    const { rows } = await db.query("select * from slack.oauth_states");
    expect(JSON.stringify(rows)).not.toContain(state);
    expect(await other.verifyStateParam(now, state)).toEqual({ scopes: ["commands"], metadata: "m" });
    await expect(issuing.verifyStateParam(now, state)).rejects.toMatchObject({
      code: "slack_oauth_invalid_state",
    });
  });

  it("is refused ten minutes after it was issued", async () => {
    const states = dbStateStore(db);
    const issued = new Date();
    const state = await states.generateStateParam({ scopes: ["commands"] }, issued);
    const later = new Date(issued.getTime() + STATE_TTL_MS + 1_000);
    await expect(states.verifyStateParam(later, state)).rejects.toMatchObject({
      code: "slack_oauth_invalid_state",
    });
    await expect(states.verifyStateParam(issued, "never-issued")).rejects.toMatchObject({
      code: "slack_oauth_invalid_state",
    });
  });
});

describe("OAuth codes in the logs", () => {
  it("no code in any line at trace level: not in the redirect's URL, not in oauth.v2.access's body", async () => {
    fake.addTeam({ teamId: "TLOGS", teamName: "Logs" });
    const { href, cookie } = await installLink();
    expect((await redirect(await consent(href, "TLOGS"), cookie)).status).toBe(200);
    // The lines that would carry a code were written (and redacted).
    const all = lines.join("\n");
    expect(all).toContain("oauth.v2.access");
    expect(lines.some((l) => l.includes("http request body") && l.includes("[redacted]"))).toBe(true);
    expect(lines.some((l) => l.includes("/slack/oauth_redirect?code=[redacted]"))).toBe(true);
    expect(codes.length).toBeGreaterThanOrEqual(3);
    for (const code of codes) expect(all).not.toContain(code);
  });
});
