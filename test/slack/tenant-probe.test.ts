// The tenant probe: every listener the app registers, enumerated from its
// registries (each form's submission, refresh actions, options loaders and
// shortcuts; every button's action id; every event; every Workflow step),
// sent as workspace B to an app whose workspace source serves A and B with
// cores that record which workspace ran them. B's scope must run, never A's;
// the source has no default (a team it does not serve is refused). Before the
// scope was a type (a request's, from its team), the forms' listeners ran with
// the app's start-up core: this probe caught it at every form.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/blocks/actions.ts";
import type { Access, Actor, Reply } from "../../src/commands/types.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { createSlackApp, type SlackApp } from "../../src/slack/app.ts";
import type { RequestTeam, WorkspaceScope, WorkspaceSource } from "../../src/slack/context.ts";
import { IMPORT_ACTIONS } from "../../src/slack/features/uploads/message.ts";
import { FORMS, SHORTCUTS } from "../../src/slack/forms/index.ts";
import { ChannelPostQueue } from "../../src/slack/io/post-queue.ts";
import { EVENTS } from "../../src/slack/listeners/events/index.ts";
import { STEPS } from "../../src/slack/listeners/functions/index.ts";
import { UnknownWorkspaceError, workspaceScope } from "../../src/slack/tenancy/scope.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import { eventually } from "../helpers/eventually.ts";
import { signedRequests, slackEnv, startFakeSlack } from "../helpers/fake-slack.ts";
import { captureLogger } from "../helpers/log.ts";
import { manifestFunctions } from "./steps-harness.ts";
import { TestCore } from "./test-core.ts";

const A = "T0AAAA";
const B = "T0BBBB";

/** A core that records every call it gets, under its workspace. */
class RecordingCore extends TestCore {
  readonly team: string;
  readonly calls: string[] = [];
  constructor(team: string) {
    super();
    this.team = team;
  }
  override async run(line: string, actor: Actor): Promise<Reply> {
    this.calls.push(`run ${line}`);
    return super.run(line, actor);
  }
  override async confirm(id: string, actor: Actor): Promise<Reply> {
    this.calls.push(`confirm ${id}`);
    return super.confirm(id, actor);
  }
  override async dismiss(id: string): Promise<Reply> {
    this.calls.push(`dismiss ${id}`);
    return super.dismiss(id);
  }
  override async may(actor: Actor, access: Access): Promise<boolean> {
    this.calls.push(`may ${access}`);
    return super.may(actor, access);
  }
  override async channelNames(): Promise<Record<number, string>> {
    this.calls.push("channelNames");
    return super.channelNames();
  }
  override async perform<T>(
    actor: Actor,
    what: { access: Access; command: string },
    work: (api: never) => Promise<T>,
  ): Promise<T> {
    this.calls.push(`perform ${what.command}`);
    return super.perform(actor, what, work as never);
  }
}

let fake: FakeSlack;
let slack: SlackApp;
let asB: SlackRequests;
const cores = new Map([A, B].map((t) => [t, new RecordingCore(t)]));
/** Every team a request was resolved for (the source's only input). */
const resolved: Array<string | undefined> = [];

const source: WorkspaceSource = {
  async resolve(team: RequestTeam): Promise<WorkspaceScope> {
    resolved.push(team.teamId);
    const core = team.teamId ? cores.get(team.teamId) : undefined;
    if (!core || !team.teamId) throw new UnknownWorkspaceError(team.teamId);
    return workspaceScope({ workspace: team.teamId, core, hooks: {}, connected: true });
  },
  scopeOf(workspace) {
    return this.resolve({ teamId: workspace });
  },
};

beforeAll(async () => {
  fake = await startFakeSlack();
  fake.defineFunctions(manifestFunctions());
  // Each workspace installs (its own bot token, as oauth.v2.access grants it): Slack ties a view and its
  // trigger to the token's workspace, as the fake does.
  for (const teamId of [A, B]) {
    const team = fake.addTeam({ teamId });
    const body = new URLSearchParams({
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      code: fake.authorizeCode(team),
    });
    const res = await fetch(new URL("oauth.v2.access", fake.apiUrl), { method: "POST", body });
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
  }
  const config = loadConfig({ ...slackEnv(fake), LOG_LEVEL: "silent" });
  slack = createSlackApp({
    workspaces: source,
    config,
    logger: captureLogger().logger,
    many: {
      routes: [],
      // Each team's installation: its own bot token.
      authorize: async (source) => {
        const team = fake.teams.get(source.teamId ?? "");
        // A team Bolt can authorize but the source does not serve (the last test): the fake's own token.
        if (!team?.botToken)
          return { botToken: fake.botToken, botUserId: fake.botUserId, teamId: source.teamId };
        return { botToken: team.botToken, botUserId: team.botUserId, teamId: source.teamId };
      },
      posts: new ChannelPostQueue(0),
    },
  });
  const { port } = await slack.start({ port: 0, host: "127.0.0.1" });
  asB = signedRequests(fake, port as number).asTeam(B);
  // A comes first: a listener that kept the first request's workspace (a capture) would run A's core for B.
  const asA = signedRequests(fake, port as number).asTeam(A);
  await asA.command("help");
  await asA.shortcut(SHORTCUTS.send);
  await eventually(() => expect(slack.work.size).toBe(0));
  expect(cores.get(A)?.calls.length).toBeGreaterThan(0);
  cores.get(A)?.calls.splice(0);
});

afterAll(async () => {
  await slack?.stop();
  await fake?.close();
});

/** Sent as B: each resolves to B alone, and A's core is never called. */
async function probe(name: string, send: () => Promise<{ status: number }>): Promise<void> {
  const before = resolved.length;
  const res = await send();
  expect(res.status, name).toBe(200);
  // The listener's work after the ack has ended before anything is read.
  await eventually(() => expect(slack.work.size).toBe(0));
  const teams = resolved.slice(before);
  expect(teams.length, `${name}: the request resolved its workspace`).toBeGreaterThan(0);
  expect(new Set(teams), name).toEqual(new Set([B]));
  expect(cores.get(A)?.calls, name).toEqual([]);
}

const formPayload = (type: string, callbackId: string, extra: Record<string, unknown>) => ({
  type,
  team: { id: B, domain: "b" },
  user: { id: "U0ALICE", username: "alice", name: "alice", team_id: B },
  api_app_id: "A0SWITCH",
  token: "deprecated-verification-token",
  is_enterprise_install: false,
  view: {
    id: `V${callbackId}`,
    team_id: B,
    app_installed_team_id: B,
    type: "modal",
    callback_id: callbackId,
    private_metadata: "",
    state: { values: {} },
    hash: `h-${Math.random()}`,
  },
  ...extra,
});

const postPayload = (payload: unknown) =>
  asB.post(
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    "application/x-www-form-urlencoded",
  );

describe("the tenant probe: every listener, as workspace B", () => {
  it("a slash command", async () => {
    const calls = cores.get(B)!.calls.length;
    await probe("/sb help", () => asB.command("help"));
    expect(cores.get(B)!.calls.length).toBeGreaterThan(calls);
  });

  it.each(FORMS.map((f) => [f.callbackId]))("the submission of form %s", async (callbackId) => {
    await probe(`submit ${callbackId}`, () =>
      postPayload(formPayload("view_submission", callbackId, { trigger_id: fake.newTriggerId() })),
    );
  });

  const refreshes = FORMS.flatMap((f) => (f.refresh?.actions ?? []).map((a) => [f.callbackId, a] as const));
  it.each(refreshes)("the refresh of form %s by %s", async (callbackId, actionId) => {
    await probe(`refresh ${callbackId} ${actionId}`, () =>
      postPayload(
        formPayload("block_actions", callbackId, {
          trigger_id: fake.newTriggerId(),
          container: { type: "view", view_id: `V${callbackId}` },
          actions: [{ action_id: actionId, block_id: "b", type: "static_select", action_ts: "1" }],
        }),
      ),
    );
  });

  const loaders = FORMS.flatMap((f) => Object.keys(f.options ?? {}).map((a) => [f.callbackId, a] as const));
  it.each(loaders)("the options of form %s for %s", async (callbackId, actionId) => {
    const calls = cores.get(B)!.calls.length;
    await probe(`options ${callbackId} ${actionId}`, () =>
      postPayload(
        formPayload("block_suggestion", callbackId, { action_id: actionId, block_id: "b", value: "a" }),
      ),
    );
    // The loader went through B's core (its permission check and its API).
    expect(
      cores
        .get(B)!
        .calls.slice(calls)
        .some((c) => c.startsWith("perform")),
    ).toBe(true);
  });

  it.each(Object.values(SHORTCUTS).map((s) => [s]))("the shortcut %s", async (callbackId) => {
    const calls = cores.get(B)!.calls.length;
    const message =
      callbackId === SHORTCUTS.sendToCustomer
        ? { text: "+14155550101 hello" }
        : callbackId === SHORTCUTS.savedReply
          ? { text: "Where is my order?" }
          : undefined;
    await probe(`shortcut ${callbackId}`, () => asB.shortcut(callbackId, { message }));
    // A form's command runs; the saved reply's form (no command line) asks the core whether this person may write.
    expect(
      cores
        .get(B)!
        .calls.slice(calls)
        .some((c) => c.startsWith("run") || (callbackId === SHORTCUTS.savedReply && c.startsWith("perform"))),
    ).toBe(true);
  });

  const buttons = [...Object.values(ACTION), ...Object.values(IMPORT_ACTIONS), "sb_inbox_open"];
  it.each(buttons.map((b) => [b]))("the button %s", async (actionId) => {
    await probe(`button ${actionId}`, () =>
      asB.blockAction({ action_id: actionId, value: actionId === ACTION.run ? "help" : "1" }),
    );
  });

  it.each(Object.keys(EVENTS).map((e) => [e]))("the event %s", async (type) => {
    const event: Record<string, unknown> = {
      type,
      user: "U0ALICE",
      channel: "C0GENERAL",
      ts: "1700000000.000100",
      event_ts: "1700000000.000100",
      ...(type === "message" ? { text: "hello", thread_ts: "1700000000.000001" } : {}),
      ...(type === "file_shared" ? { file_id: "F0NONE", channel_id: "C0GENERAL", user_id: "U0ALICE" } : {}),
      ...(type === "app_home_opened" ? { tab: "home" } : {}),
      ...(type === "tokens_revoked" ? { tokens: { bot: [] } } : {}),
    };
    await probe(`event ${type}`, () => asB.event(event));
  });

  it.each(STEPS.map((s) => [s.callbackId]))("the Workflow step %s", async (callbackId) => {
    await probe(`step ${callbackId}`, () => asB.functionExecuted(callbackId, {}));
  });

  it("a team the source does not serve is refused in words, and no core runs", async () => {
    const before = [...cores.values()].map((c) => c.calls.length);
    const sent = await signedRequests(fake, slack.port as number)
      .asTeam("T0NEVER")
      .command("tags");
    expect(sent.status).toBe(200);
    const answer = JSON.stringify((await fake.waitForResponse(sent.responseUrl!)).body);
    expect(answer).toContain("not installed in this workspace");
    expect([...cores.values()].map((c) => c.calls.length)).toEqual(before);
  });
});
