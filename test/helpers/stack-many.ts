// The test stack's default mode (test/helpers/stack.ts): many-workspace mode
// with two workspaces, A and B, on the one composition path
// (createManyWorkspaceSwitchboard). Both are installed as people do it ("Add
// to Slack" through the fake's consent page) and connected each to its own
// sandbox organization: A is the fake Slack's own team (T0FAKE: #general, alice
// and bob, the channels and people the test gives) with the sandbox's seeded
// organization and the stack's settings (writers, channels, channel names… kept
// as A's own, since the environment gives a many-workspace deployment none);
// B is a second team (T0WSB) with an organization of its own, its person a
// writer. The test drives A as it would the one workspace of single mode
// (`core`, `client`, `req`, `switchboard`), and can ask B whether it saw anything.
import { expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import type { WorkspaceId } from "../../src/domain/workspace.ts";
import {
  createManyWorkspaceSwitchboard,
  type ManyWorkspaceSwitchboard,
  type Switchboard,
  type SwitchboardOptions,
} from "../../src/host/app.ts";
import { type Config, loadConfig } from "../../src/platform/config.ts";
import type { Logger } from "../../src/platform/log.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { type CreateSlackAppOptions, type SlackApp, startSlackApp } from "../../src/slack/app.ts";
import type { SlackHooks, WorkspaceScope } from "../../src/slack/context.ts";
import type { HomeOptions } from "../../src/slack/features/home/view.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { ChannelNames } from "../../src/store/channels.ts";
import type { Db } from "../../src/store/db.ts";
import { WorkspaceSettings } from "../../src/store/workspace-settings.ts";
import { envSettings } from "../../src/workspaces/env-settings.ts";
import type { WorkspaceRuntime } from "../../src/workspaces/runtime.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import type { TestDb } from "./db.ts";
import { manyWorkspaceEnv, signedRequests } from "./fake-slack.ts";
import { freePort } from "./free-port.ts";
import { addToSlack, type StackWorkspace, stackWorkspace } from "./workspaces-stack.ts";

/** Workspace B's team: a second workspace of the same deployment, its own channels, people and organization. */
export const TEAM_B = { teamId: "T0WSB", teamName: "Workspace B" } as const;

export interface ManyParts {
  db: TestDb;
  fake: FakeSlack;
  sandbox: Sandbox;
  /** The API's URL the workspaces' keys are used at (the sandbox's, or its counting proxy's). */
  apiUrl: string;
  logger: Logger;
  env?: Record<string, string>;
  onAudit?: SwitchboardOptions["onAudit"];
  hooks?: (a: Switchboard, config: Config) => SlackHooks | Promise<SlackHooks>;
  home?: Pick<HomeOptions, "clock" | "cacheMs">;
  progress?: CreateSlackAppOptions["progress"];
  /** Called with each part to close, in order (closed last first). */
  closing(close: () => Promise<void>): void;
}

export interface ManyComposed {
  config: Config;
  deployment: ManyWorkspaceSwitchboard;
  /** Workspace A as the one-workspace Switchboard the tests drive (its runtime's core, client, stores…). */
  switchboard: Switchboard;
  slack: SlackApp;
  /** Workspace B: what its people send, its organization, its requests. */
  b: StackWorkspace;
}

export async function composeManyStack(p: ManyParts): Promise<ManyComposed> {
  const { fake, db, sandbox, logger } = p;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    ...manyWorkspaceEnv(fake, base),
    MESSAGING_API_URL: p.apiUrl,
    LOG_LEVEL: "silent",
    // The client's budget as generous as the sandbox's, unless the test sets its own (as in single mode).
    API_READ_LIMIT: "100000",
    API_WRITE_LIMIT: "10000",
    ...p.env,
  });
  // The tests drive each workspace's inbox poller and live progress themselves (their clocks, their steps).
  const deployment = await createManyWorkspaceSwitchboard(config, {
    logger,
    db,
    background: false,
    ...(p.home ? { home: p.home } : {}),
  });
  p.closing(() => deployment.close());
  const a: WorkspaceId = fake.teamId;
  // The stack's settings are A's own (a many-workspace deployment's environment gives a workspace none).
  const settings = Object.fromEntries(
    Object.entries(envSettings(config)).filter(
      ([, v]) => v !== undefined && !(Array.isArray(v) && !v.length),
    ),
  );
  const store = new WorkspaceSettings(db);
  if (Object.keys(settings).length) await store.save(a, settings, "test-stack", new Date());
  // Its channel names too (MESSAGING_CHANNEL_NAMES, single mode's seed of the environment's workspace).
  await new ChannelNames(db, a).seed(config.MESSAGING_CHANNEL_NAMES, "settings");
  const personB = fake.addUser({ id: `U${TEAM_B.teamId}ANA`, name: "ana-b", team: TEAM_B.teamId });
  await store.save(TEAM_B.teamId, { writers: [personB.id] }, "test-stack", new Date());

  // Each request's workspace from the registry; A's scopes carry the test's hooks (B's never do).
  let hooksOfA: SlackHooks = {};
  const withHooks = (scope: WorkspaceScope): WorkspaceScope =>
    scope.workspace === a && scope.connected ? { ...scope, hooks: { ...scope.hooks, ...hooksOfA } } : scope;
  const slack = await startSlackApp(
    {
      ...deployment,
      workspaces: {
        withAppHooks: (appHooks) => {
          const registry = deployment.workspaces.withAppHooks(appHooks);
          return {
            slackClientOf: (id) => registry.slackClientOf(id),
            resolve: async (team) => withHooks(await registry.resolve(team)),
            scopeOf: async (id) => withHooks(await registry.scopeOf(id)),
          };
        },
      },
    },
    config,
    logger,
    { listen: { port, host: "127.0.0.1" }, ...(p.progress ? { progress: p.progress } : {}) },
  );
  p.closing(() => slack.stop());
  await slack.settled;

  // A: the fake's own team (its bot U0BOT), installed by someone none of the tests' people are.
  const teamA = fake.addTeam({
    teamId: a,
    teamName: "Workspace A",
    botUserId: fake.botUserId,
    botId: fake.botId,
    installerUserId: "U0INSTALLER",
    rotation: false,
  });
  const teamB = fake.addTeam({ ...TEAM_B, installerUserId: personB.id, rotation: false });
  const orgB = await sandbox.createOrganization({ name: "Workspace B Org" });
  const orgA = await sandbox.organizationOf(sandbox.apiKey);
  for (const [team, apiKey, organizationName] of [
    [teamA, sandbox.apiKey, orgA?.name ?? "Workspace A Org"],
    [teamB, orgB.apiKey, orgB.name],
  ] as const) {
    const installed = await addToSlack(base, team);
    if (!installed.includes("installed in")) throw new Error(`${team.teamId} not installed: ${installed}`);
    await deployment.installations.connect({
      teamId: team.teamId,
      apiKey,
      organizationName,
      keyScopes: ["read", "write"],
      connectedBy: team.installerUserId,
    });
  }
  const rt = await deployment.workspaces.runtime(a);
  if (!rt?.slack) throw new Error("workspace A's runtime was not built");
  if (p.onAudit) rt.auditListeners.push(p.onAudit);
  const switchboard = asSwitchboard(deployment, rt);
  // The app's client: A's bot (a many-workspace app has no one token of its own).
  slack.client = rt.slack.client;
  hooksOfA = {
    ...(await p.hooks?.(switchboard, config)),
  };
  const apiB = new MessagingClient({ baseUrl: p.apiUrl, apiKey: orgB.apiKey });
  p.closing(() => apiB.close());
  const requests = signedRequests(fake, port);
  const b = stackWorkspace(fake, requests.asTeam(teamB.teamId, teamB.botUserId), teamB, orgB, apiB, {
    id: personB.id,
    name: personB.name,
  });
  return { config, deployment, switchboard, slack, b };
}

/** Workspace A's runtime as the Switchboard single mode gives (src/host/app.ts createSwitchboard). */
function asSwitchboard(deployment: ManyWorkspaceSwitchboard, rt: WorkspaceRuntime): Switchboard {
  const { core, client, stores, slack, apiKey, auditListeners, reports, channels, inbox } = rt;
  const { db, automations, onClose, close } = deployment;
  return {
    ...{ core, client, stores, slack, apiKey, auditListeners, reports, channels, inbox },
    ...{ db, automations, onClose, close, deployment, workspace: rt.id },
    workspaces: (appHooks) => deployment.workspaces.withAppHooks(appHooks),
    ...(rt.automations ? { eventsTo: rt.automations } : {}),
  };
}

/**
 * Tenancy: workspace B saw nothing of what A's people did. No message in its
 * channels or DMs, no Slack write made with its bot's token, no audit row of
 * its own. Fails on the first thing B was given.
 */
export async function expectNothingInB(s: { b?: StackWorkspace; fake?: FakeSlack; db: Db }): Promise<void> {
  const { b, fake, db } = s;
  if (!b || !fake) throw new Error("single mode has no workspace B: ask for mode many");
  const id = b.team.teamId;
  expect(fake.messages.filter((m) => m.team === id).map((m) => m.text)).toEqual([]);
  const reads = /^(auth|users|conversations\.(info|list|members|history|replies)|usergroups|team|oauth)\b/;
  expect(
    fake.calls.filter((c) => c.team === b.callTeam && !reads.test(c.method)).map((c) => c.method),
  ).toEqual([]);
  expect(await new AuditLog(db, id).list({ limit: 10 })).toEqual([]);
}

/** The file's last test: workspace B saw nothing of what the file's tests did in A (expectNothingInB). */
export function itLeavesBUntouched(stack: () => { b?: StackWorkspace; fake?: FakeSlack; db: Db }): void {
  it("leaves workspace B, on the same deployment, untouched", async () => {
    await expectNothingInB(stack());
  });
}
