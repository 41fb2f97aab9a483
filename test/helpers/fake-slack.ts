// The one fake-Slack set-up of the tests: the fake Slack on 127.0.0.1 with
// its default workspace (#general, alice and bob), the settings that point
// the app at it, and signed requests to an app listening on a port. Used by
// the stack (test/helpers/stack.ts: the real core and sandbox), the TestCore
// harness (test/slack/harness.ts) and the tests that spawn the real process.
import { randomBytes } from "node:crypto";
import { type FakeChannel, FakeSlack, type FakeSlackOptions, type FakeUser } from "../fakes/slack.ts";
import { SlackRequests } from "../fakes/slack-requests.ts";

export const SIGNING_SECRET = "test-signing-secret-0123456789abcdef";

export const GENERAL: FakeChannel = { id: "C0GENERAL", name: "general" };
export const ALICE: FakeUser = { id: "U0ALICE", name: "alice" };
export const BOB: FakeUser = { id: "U0BOB", name: "bob" };

export interface FakeSlackSetup extends FakeSlackOptions {
  /** Default: #general (C0GENERAL). */
  channels?: FakeChannel[];
  /** Default: alice (U0ALICE) and bob (U0BOB). */
  users?: FakeUser[];
}

/** Starts a fake Slack with its channels and people; close it with `fake.close()`. */
export async function startFakeSlack(opts: FakeSlackSetup = {}): Promise<FakeSlack> {
  const { channels = [GENERAL], users = [ALICE, BOB], ...fakeOpts } = opts;
  const fake = await FakeSlack.start(fakeOpts);
  for (const c of channels) fake.addChannel(c);
  for (const u of users) fake.addUser(u);
  return fake;
}

/** The settings that point the app at the fake: HTTP mode, or Socket Mode with the fake's app token. */
export function slackEnv(fake: FakeSlack, mode: "http" | "socket" = "http"): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    ...(mode === "socket" ? { SLACK_APP_TOKEN: fake.appToken } : {}),
  };
}

/** The settings of a many-workspace deployment on the fake Slack: its app's credentials, a new secret key. */
export function manyWorkspaceEnv(fake: FakeSlack, publicUrl?: string): Record<string, string> {
  return {
    SLACK_CLIENT_ID: fake.clientId,
    SLACK_CLIENT_SECRET: fake.clientSecret,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_STATE_SECRET: "a-state-secret-for-the-tests",
    SWITCHBOARD_SECRET_KEY: randomBytes(32).toString("base64"),
    SLACK_API_URL: fake.apiUrl,
    ...(publicUrl ? { PUBLIC_URL: publicUrl } : {}),
  };
}

/** Signed requests to the app listening on `port` of 127.0.0.1, as Slack sends them. */
export function signedRequests(fake: FakeSlack, port: number): SlackRequests {
  return new SlackRequests(`http://127.0.0.1:${port}/slack/events`, SIGNING_SECRET, fake);
}
