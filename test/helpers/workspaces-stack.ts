// The one set-up of the tests that run Switchboard with many workspaces
// (docs/workspaces.md), on real parts: a fresh database, the fake Slack, the
// real app in many-workspace mode (createManyWorkspaceSwitchboard with its
// embedded sandbox, startSlackApp on 127.0.0.1), and N workspaces
// installed as people do it, through "Add to Slack" (GET /slack/install, the
// fake's consent page, /slack/oauth_redirect). Each workspace gets a sandbox
// organization of its own and, when asked, is connected to it (`connect`:
// "key" gives its key with `/sb connect key=…`, "demo" takes a demo account,
// "none" leaves it to the test, for example through the connect form).
// Each workspace sends its own requests (its team, its triggers): commands,
// clicks, forms opened and submitted from the view the fake stored, options,
// shortcuts.
//   const s = await startWorkspacesStack({ teams: 3, connect: "key" });   ...   await s.close();
import { MessagingClient } from "../../src/api/client.ts";
import { createManyWorkspaceSwitchboard, type ManyWorkspaceSwitchboard } from "../../src/host/app.ts";
import { type Config, loadConfig } from "../../src/platform/config.ts";
import type { Logger } from "../../src/platform/log.ts";
import type { NewOrganization } from "../../src/sandbox/index.ts";
import { type SlackApp, startSlackApp } from "../../src/slack/app.ts";
import type { FakeSlack, FakeTeam, FakeView } from "../fakes/slack.ts";
import type {
  BlockActionOptions,
  ButtonAction,
  SentRequest,
  SlackRequests,
  SlackUserRef,
} from "../fakes/slack-requests.ts";
import { type Entries, Forms } from "../slack/forms-harness.ts";
import { openTestDb, type TestDb } from "./db.ts";
import { manyWorkspaceEnv, signedRequests, startFakeSlack } from "./fake-slack.ts";
import { freePort } from "./free-port.ts";
import { captureLogger } from "./log.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely by tests.
type Json = any;

export interface WorkspacesStackOptions {
  /** The workspaces: how many (TWS1, TWS2, …), or each one's team (addTeam's fields). */
  teams: number | Array<Partial<FakeTeam> & { teamId: string }>;
  /** How each connects once installed: its own organization's key (default), a demo account, or not at all. */
  connect?: "key" | "demo" | "none";
  /** Settings over the stack's, as the environment gives them. */
  env?: Record<string, string>;
}

/** One installed workspace, and what its people send. */
export interface StackWorkspace {
  team: FakeTeam;
  /** Requests from this workspace: its team id, bot user and triggers. */
  req: SlackRequests;
  /** Its installer (its own person in the fake): may connect it, and writes. */
  user: SlackUserRef;
  /** Its own organization in the sandbox, made at set-up (connected to it unless `connect` said otherwise). */
  org: Pick<NewOrganization, "id" | "name" | "apiKey">;
  /** The messaging API with its organization's key: what landed in its organization. */
  api: MessagingClient;
  /** Its person's forms (test/slack/forms-harness.ts), through its requests. */
  forms: Forms;
  /** The team the fake records for calls made with its bot token (RecordedCall.team). */
  callTeam: string;
  /** Its #general (the fake's generalOf): where its requests come from unless told otherwise. */
  general: string;
  /** `/sb <text>` by its person (or `user`); the first answer to its response_url, as JSON text. */
  command(text: string, user?: SlackUserRef): Promise<string>;
  /** A button clicked on a message in this workspace. */
  click(action: ButtonAction, opts?: BlockActionOptions): Promise<SentRequest>;
  /** `/sb <line>` that opens a form; the view the fake stored (opened with this workspace's token). */
  open(line: string): Promise<FakeView>;
  /** Submits a stored view with these entries (block id → value); Slack's answer (errors, update, or {}). */
  submit(viewId: string, entries?: Entries): Promise<Json>;
  /** The options an external select of a stored view loads for what was typed (block_suggestion). */
  suggest(viewId: string, blockId: string, value: string, entries?: Entries): Promise<Json[]>;
  /** A choice inside a stored view (block_actions), waiting for the views.update it causes. */
  act(
    viewId: string,
    blockId: string,
    entries?: Entries,
    button?: { action_id: string; value: string },
  ): Promise<FakeView>;
  /**
   * A shortcut of this workspace: the view it opens (a waiting modal), once
   * the app has put what it had to say in it (views.update).
   */
  shortcut(
    callbackId: string,
    opts?: { message?: { text: string; ts?: string; user?: string }; channelId?: string },
  ): Promise<FakeView>;
}

export interface WorkspacesStack {
  fake: FakeSlack;
  db: TestDb;
  sb: ManyWorkspaceSwitchboard;
  slack: SlackApp;
  config: Config;
  logger: Logger;
  logs: ReturnType<typeof captureLogger>["logs"];
  /** http://127.0.0.1:<port> of the app. */
  base: string;
  /** Signed requests from the fake's default team (installed nowhere). */
  requests: SlackRequests;
  workspaces: StackWorkspace[];
  /** "Add to Slack" as a person does it; the page the redirect answers. */
  addToSlack(team: FakeTeam): Promise<string>;
  close(): Promise<void>;
}

/** "Add to Slack": the install page, Slack's consent for `team`, the redirect back with its code. */
export async function addToSlack(base: string, team: FakeTeam): Promise<string> {
  const res = await fetch(`${base}/slack/install`);
  if (res.status !== 200) throw new Error(`GET /slack/install answered ${res.status}`);
  const page = await res.text();
  const cookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
  const href = /href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
  const consent = await fetch(`${href}&team=${team.teamId}`, { redirect: "manual" });
  if (consent.status !== 302) throw new Error(`Slack's consent answered ${consent.status}`);
  const back = await fetch(consent.headers.get("location")!, { headers: { cookie } });
  if (back.status !== 200)
    throw new Error(`the OAuth redirect answered ${back.status}: ${await back.text()}`);
  return back.text();
}

export async function startWorkspacesStack(opts: WorkspacesStackOptions): Promise<WorkspacesStack> {
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    let failure: unknown;
    for (const close of closers.splice(0).reverse()) await close().catch((err) => (failure ??= err));
    if (failure) throw failure;
  };
  try {
    const [fake, db] = await Promise.all([startFakeSlack(), openTestDb()]);
    closers.push(
      () => db.close(),
      () => fake.close(),
    );
    const { logger, logs } = captureLogger();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      ...manyWorkspaceEnv(fake, base),
      LOG_LEVEL: "warn",
      // A generous API budget unless a test sets its own (as in test/helpers/stack.ts).
      SANDBOX_READ_LIMIT: "100000",
      SANDBOX_WRITE_LIMIT: "10000",
      API_READ_LIMIT: "100000",
      API_WRITE_LIMIT: "10000",
      ...opts.env,
    });
    const sb = await createManyWorkspaceSwitchboard(config, { logger, db });
    closers.push(() => sb.close());
    const slack = await startSlackApp(sb, config, logger, { listen: { port, host: "127.0.0.1" } });
    closers.push(() => slack.stop());
    const requests = signedRequests(fake, port);
    const teams =
      typeof opts.teams === "number"
        ? Array.from({ length: opts.teams }, (_, i) => ({
            teamId: `TWS${i + 1}`,
            teamName: `Workspace ${i + 1}`,
          }))
        : opts.teams;
    const workspaces: StackWorkspace[] = [];
    for (const t of teams) {
      const person = fake.addUser({
        id: `U${t.teamId}ANA`,
        name: `ana-${t.teamId.toLowerCase()}`,
        team: t.teamId,
      });
      const team = fake.addTeam({ installerUserId: person.id, ...t });
      const installed = await addToSlack(base, team);
      if (!installed.includes("installed in")) throw new Error(`${team.teamId} not installed: ${installed}`);
      const org = await sb.sandbox!.createOrganization({ name: `${team.teamName} Org` });
      const api = new MessagingClient({ baseUrl: sb.sandbox!.url, apiKey: org.apiKey });
      closers.push(() => api.close());
      const ws = stackWorkspace(fake, requests.asTeam(team.teamId, team.botUserId), team, org, api, {
        id: person.id,
        name: person.name,
      });
      if (opts.connect !== "none") {
        const answer = await ws.command(
          opts.connect === "demo" ? "connect demo" : `connect key=${org.apiKey}`,
        );
        if (!answer.includes("Connected to")) throw new Error(`${team.teamId} not connected: ${answer}`);
        if (opts.connect === "demo") {
          // The demo account is an organization of its own: the workspace's key is that one.
          const key = (await sb.installations.connection(team.teamId))!.apiKey;
          const demo = (await sb.sandbox!.organizationOf(key))!;
          ws.org = { id: demo.id, name: demo.name, apiKey: key };
          ws.api = new MessagingClient({ baseUrl: sb.sandbox!.url, apiKey: key });
          const demoApi = ws.api;
          closers.push(() => demoApi.close());
        }
      }
      workspaces.push(ws);
    }
    return {
      fake,
      db,
      sb,
      slack,
      config,
      logger,
      logs,
      base,
      requests,
      workspaces,
      addToSlack: (team) => addToSlack(base, team),
      close: closeAll,
    };
  } catch (err) {
    await closeAll().catch(() => {});
    throw err;
  }
}

/** One installed workspace's handle: its requests, person, organization and forms. */
export function stackWorkspace(
  fake: FakeSlack,
  req: SlackRequests,
  team: FakeTeam,
  org: Pick<NewOrganization, "id" | "name" | "apiKey">,
  api: MessagingClient,
  user: SlackUserRef,
): StackWorkspace {
  const forms = new Forms(req, fake, user);
  const callTeam = req.sender.key;
  return {
    team,
    req,
    user,
    org,
    api,
    forms,
    callTeam,
    general: fake.generalOf(team.teamId),
    async command(text, as = user) {
      const sent = await req.command(text, { user: as });
      if (sent.status !== 200) throw new Error(`/sb ${text} answered ${sent.status}: ${sent.body}`);
      return JSON.stringify((await fake.waitForResponse(sent.responseUrl!, 1, 20_000)).body);
    },
    click: (action, opts = {}) => req.blockAction(action, { user, ...opts }),
    open: async (line) => fake.view((await forms.open(line)).id)!,
    submit: (viewId, entries = {}) => forms.submit(viewId, entries),
    suggest: (viewId, blockId, value, entries = {}) => forms.suggest(viewId, blockId, value, entries),
    act: async (viewId, blockId, entries = {}, button) =>
      fake.view((await forms.act(viewId, blockId, entries, button)).id)!,
    async shortcut(callbackId, opts = {}) {
      const sent = await req.shortcut(callbackId, { user, ...opts });
      if (sent.status !== 200)
        throw new Error(`shortcut ${callbackId} answered ${sent.status}: ${sent.body}`);
      // The waiting modal opened with this shortcut's trigger, then its content put in it.
      const opened = await fake.waitFor(
        () =>
          fake
            .callsOf("views.open")
            .find((c) => c.args.trigger_id === sent.triggerId && c.response.ok === true),
        20_000,
        `views.open of the shortcut ${callbackId}`,
      );
      const viewId = (opened.response.view as Json).id as string;
      await fake.waitFor(
        () => fake.callsOf("views.update").find((c) => c.args.view_id === viewId && c.response.ok === true),
        20_000,
        `views.update of the shortcut ${callbackId}'s modal`,
      );
      return fake.view(viewId)!;
    },
  };
}
