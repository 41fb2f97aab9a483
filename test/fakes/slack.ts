// A fake of the Slack Web API for tests: a real HTTP server on 127.0.0.1
// (port 0) that the Bolt app reaches through SLACK_API_URL. It records every
// call and every response_url post, and it refuses what Slack refuses (Block
// Kit limits, missing fallback text, 1 message a second per channel, expired
// trigger ids) with Slack's error codes, so a test fails where Slack would.
// It keeps workspaces apart as Slack does: a trigger id is issued to one
// workspace and only its token may open a view with it; a view belongs to the
// workspace whose token opened it (its team_id and app_installed_team_id),
// and another workspace's token cannot update it or push onto it. Channels,
// people and messages are each one workspace's too (`team`, default the
// fake's own): a token posts, reads and reacts only in its own workspace's
// channels (`channel_not_found` elsewhere) and sees only its people
// (`user_not_found`); an org-wide install's token reaches its org's workspaces.
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkMessageBlocks, checkView, LIMITS } from "./block-kit.ts";
import { FakeSocketMode } from "./socket-mode.ts";
import { waitForEvent } from "./wait-for.ts";

type Json = Record<string, unknown>;

export interface RecordedCall {
  method: string;
  args: Json;
  at: number;
  /** What the fake answered (ok:false with Slack's error code when refused). */
  response: Json;
  status: number;
  /** The workspace whose token made the call (addTeam's), when it was one of theirs. */
  team?: string;
}

export interface RecordedResponse {
  /** The id in /response/<id>. */
  id: string;
  body: Json;
  at: number;
  status: number;
  /** Set when the fake refused the body. */
  error?: string;
}

export interface FakeMessage {
  channel: string;
  /** The workspace it is in (its channel's); set by the fake. */
  team?: string;
  ts: string;
  text?: string;
  blocks?: unknown[];
  thread_ts?: string;
  deleted?: boolean;
  /** Reaction names the bot added (reactions.add). */
  reactions?: string[];
  /** A message a person typed (addUserMessage), not the bot. */
  user?: string;
  /** Message metadata (chat.postMessage's `metadata`), returned by reads with include_all_metadata. */
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

export interface FakeUser {
  id: string;
  name: string;
  /** The workspace the person is in (a team id); default the fake's own. */
  team?: string;
  real_name?: string;
  tz?: string;
  tz_offset?: number;
  is_bot?: boolean;
  /** A workspace admin or owner (users.info): may connect the workspace and change its settings. */
  is_admin?: boolean;
  is_owner?: boolean;
}

export interface FakeChannel {
  id: string;
  name: string;
  /** The workspace the channel is in (a team id); default the fake's own. */
  team?: string;
  is_private?: boolean;
  is_im?: boolean;
  /** Whether the bot is in it. Private channels and DMs need it; public ones take chat:write.public. */
  is_member?: boolean;
}

export interface FakeFile {
  id: string;
  name: string;
  title?: string;
  mimetype?: string;
  filetype?: string;
  content: Buffer;
  user?: string;
  channels?: string[];
}

export interface FakeView {
  id: string;
  hash: string;
  view: Json;
  user?: string;
  external_id?: string;
  /** The workspace whose token opened it: its key (FakeSender.key), and what Slack says of it in payloads. */
  team: string;
  /** The workspace the view is in (Slack's `view.team_id`). */
  teamId: string;
  /**
   * The workspace that installed the app (Slack's `view.app_installed_team_id`):
   * the team itself, or the enterprise's id for an org-wide install. Bolt
   * authorizes a view_submission by it first.
   */
  appInstalledTeamId: string;
  enterpriseId?: string;
}

/**
 * Who sends a request to the app: one workspace of the fake (the default one,
 * or one added with addTeam). Its `key` is what triggers and views are tied
 * to: the team id, or the enterprise id of an org-wide install (the key of
 * its bot token).
 */
export interface FakeSender {
  key: string;
  teamId: string;
  botUserId: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
}

/** Who made a Web API call: the key of the workspace its token belongs to. */
interface Caller {
  team: string;
}

/** A custom step's definition, as manifest.yml declares it under `functions`. */
export interface FakeFunctionDef {
  title: string;
  description?: string;
  input_parameters: Record<string, FakeParam>;
  output_parameters: Record<string, FakeParam>;
}

export interface FakeParam {
  type: string;
  title?: string;
  description?: string;
  is_required?: boolean;
}

/** One run of a custom step in a workflow, as Slack tracks it. */
export interface FakeExecution {
  id: string;
  callbackId: string;
  workflowExecutionId: string;
  inputs: Json;
  /** The bot_access_token of the execution (Slack: a workflow token, valid while it runs). */
  token: string;
  /** The workspace the workflow runs in (a FakeSender's key): its token is that workspace's. */
  team: string;
  state: "running" | "completed" | "failed";
  outputs?: Json;
  error?: string;
}

/**
 * A workspace (or, org-wide, an Enterprise Grid org) that can install the app
 * with "Add to Slack": its own bot token, and with token rotation a refresh
 * token that works once (oauth.v2.access, grant_type=refresh_token).
 */
export interface FakeTeam {
  teamId: string;
  teamName: string;
  enterpriseId?: string;
  enterpriseName?: string;
  /** Installed org-wide: the installation is the enterprise's (team is null in oauth.v2.access). */
  isEnterpriseInstall: boolean;
  /** Org-wide: the org's other workspaces (team ids) the install reaches besides `teamId`; sender() speaks for each. */
  orgTeams?: string[];
  botUserId: string;
  botId: string;
  /** Who clicks "Allow". */
  installerUserId: string;
  /** Token rotation (`token_rotation_enabled: true`): tokens expire after tokenTtlSeconds. */
  rotation: boolean;
  /** The bot token last handed out (earlier ones stay good until they expire), and its refresh token. */
  botToken?: string;
  refreshToken?: string;
}

export interface FakeSlackOptions {
  botToken?: string;
  teamId?: string;
  botUserId?: string;
  botId?: string;
  /** How long a trigger_id stays valid (Slack: 3 s). */
  triggerTtlMs?: number;
  /** Clock, injectable so rate-limit and expiry tests are deterministic. */
  now?: () => number;
  /** Lifetime of a rotating bot token, in seconds (Slack: 12 hours). */
  tokenTtlSeconds?: number;
}

/**
 * An image block's `slack_file` must name a file Slack knows and has
 * finished processing: a file just uploaded can be refused for a while
 * ("invalid slack file"). `processingPosts` is how many messages naming a
 * new upload are refused before it is ready (a count, not a clock: tests
 * stay deterministic); set it on the fake (`fake.fileProcessingPosts`).
 */
function slackFileProblems(blocks: unknown, known: (id: string) => boolean): string[] {
  if (!Array.isArray(blocks)) return [];
  const problems: string[] = [];
  blocks.forEach((b, i) => {
    const file = (b as Json)?.type === "image" ? ((b as Json).slack_file as Json | undefined) : undefined;
    if (typeof file?.id === "string" && !known(file.id))
      problems.push(`[ERROR] invalid slack file [json-pointer:/blocks/${i}/slack_file]`);
  });
  return problems;
}

/**
 * Slack fetches an image block's `image_url` when the message is posted and
 * refuses the message when it cannot ("downloading image failed"). The fake
 * cannot fetch inside a call, so `fetchable` says which URLs Slack reaches.
 */
function imageUrlProblems(blocks: unknown, fetchable: (url: string) => boolean): string[] {
  if (!Array.isArray(blocks)) return [];
  const problems: string[] = [];
  blocks.forEach((b, i) => {
    const url = (b as Json)?.type === "image" ? (b as Json).image_url : undefined;
    if (typeof url === "string" && !fetchable(url))
      problems.push(`[ERROR] downloading image failed [json-pointer:/blocks/${i}/image_url]`);
  });
  return problems;
}

const JSON_FIELDS = new Set([
  "blocks",
  "attachments",
  "view",
  "files",
  "metadata",
  "options",
  "users",
  "outputs",
]);

export class FakeSlack {
  readonly calls: RecordedCall[] = [];
  readonly responses: RecordedResponse[] = [];
  readonly messages: FakeMessage[] = [];
  readonly views = new Map<string, FakeView>();
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  readonly userGroups = new Map<string, string[]>();
  /** Each workspace's user groups as usergroups.list gives them, by team key (setUserGroup's `team`). */
  readonly groupsByTeam = new Map<string, Map<string, { id: string; name: string; handle: string }>>();
  /** Workspaces on a plan without user groups: usergroups.list answers plan_upgrade_required. */
  readonly noUserGroups = new Set<string>();
  readonly files = new Map<string, FakeFile>();
  readonly functions = new Map<string, FakeFunctionDef>();
  readonly executions = new Map<string, FakeExecution>();
  readonly botToken: string;
  /** The app-level token (xapp-…) of Socket Mode: only apps.connections.open takes it. */
  readonly appToken = "xapp-1-fake-app-token";
  /** Socket Mode's side: apps.connections.open hands out its URLs, on this server's port. */
  readonly socketMode = new FakeSocketMode(() => this.url);
  readonly teamId: string;
  /** Workspaces that install the app with "Add to Slack" (addTeam), by team id (org-wide: enterprise id). */
  readonly teams = new Map<string, FakeTeam>();
  /** The app's credentials (Basic Information page), for oauth.v2.access. */
  readonly clientId = "1111111111.2222222222";
  readonly clientSecret = "fake-client-secret-0123456789abcdef";
  readonly appId = "A0SWITCH";
  tokenTtlSeconds: number;
  /** Bot tokens handed out by oauth.v2.access: token → team key and expiry (ms; Infinity without rotation). */
  private readonly teamTokens = new Map<string, { team: string; expiresAt: number }>();
  /** Refresh tokens not yet spent → team key. */
  private readonly refreshTokens = new Map<string, string>();
  /** Codes of the redirect after "Allow", usable once → team key and the redirect_uri they were issued for. */
  private readonly codes = new Map<string, { team: string; redirectUri?: string }>();
  readonly botUserId: string;
  readonly botId: string;
  now: () => number;
  private readonly triggerTtlMs: number;
  /** Trigger ids: when issued, whether spent, to which workspace (key), and from inside which view. */
  private readonly triggers = new Map<
    string,
    { issuedAt: number; used: boolean; team: string; view?: string }
  >();
  private readonly responseUrls = new Map<string, { uses: number }>();
  private readonly postTimes = new Map<string, number[]>();
  private readonly pendingUploads = new Map<string, { filename: string; length: number; content?: Buffer }>();
  /** Messages naming a new upload in an image block that are refused before it is ready (0: ready at once). */
  fileProcessingPosts = 0;
  /** Which image blocks' image_url Slack can fetch (default: all). */
  imageUrlFetchable: (url: string) => boolean = () => true;
  /** false: the app lacks files:read, and a file download answers Slack's login page with 200. */
  filesRead = true;
  /** Uploads still processing: file id → refusals left. */
  private readonly processing = new Map<string, number>();
  private fileReady = (id: string): boolean => {
    if (!this.files.has(id)) return false;
    const left = this.processing.get(id) ?? 0;
    if (left <= 0) return true;
    this.processing.set(id, left - 1);
    return false;
  };
  private readonly events = new EventEmitter();
  private seq = 0;
  private server!: Server;
  url = "";

  private constructor(opts: FakeSlackOptions) {
    this.botToken = opts.botToken ?? "xoxb-fake-bot-token";
    this.teamId = opts.teamId ?? "T0FAKE";
    this.botUserId = opts.botUserId ?? "U0BOT";
    this.botId = opts.botId ?? "B0BOT";
    this.triggerTtlMs = opts.triggerTtlMs ?? 3000;
    this.now = opts.now ?? Date.now;
    this.tokenTtlSeconds = opts.tokenTtlSeconds ?? 43_200;
    this.events.setMaxListeners(100);
  }

  static async start(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
    const fake = new FakeSlack(opts);
    fake.server = createServer((req, res) => {
      fake.handle(req, res).catch((err) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
      });
    });
    fake.server.on("upgrade", (req, socket) => fake.socketMode.upgrade(req, socket));
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve));
    fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Base URL for Bolt's clientOptions.slackApiUrl / SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  async close(): Promise<void> {
    this.socketMode.closeAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- fixtures -----------------------------------------------------------

  private readonly outages = new Map<string, { count: number }>();

  /** The next `count` calls of `method` take effect, then answer HTTP 500 (the answer is lost). */
  loseAnswers(method: string, count = 1): void {
    this.outages.set(method, { count });
  }

  private readonly refusals = new Map<string, { error: string; count: number }>();

  /** The next `count` calls of `method` are refused with `error` (ok:false, nothing takes effect). */
  refuseNext(method: string, error: string, count = 1): void {
    this.refusals.set(method, { error, count });
  }

  /**
   * Posts to response_urls that `refused` picks (by their body) answer 404
   * `expired_url`, as Slack does once a URL is no longer good (an app
   * uninstalled, a token revoked, 30 minutes gone); unset: none refused.
   */
  responsesRefused: ((body: Json) => boolean) | undefined;

  /** A workspace that can install the app; its key is its team id, or its enterprise id when org-wide. */
  addTeam(team: Partial<FakeTeam> & { teamId: string }): FakeTeam {
    const t: FakeTeam = {
      teamName: `Team ${team.teamId}`,
      isEnterpriseInstall: false,
      botUserId: `UB${team.teamId}`,
      botId: `BB${team.teamId}`,
      installerUserId: `UI${team.teamId}`,
      rotation: true,
      ...team,
    };
    if (t.isEnterpriseInstall && !t.enterpriseId)
      throw new Error("fake Slack: an org-wide install needs its enterpriseId");
    this.teams.set(t.isEnterpriseInstall ? t.enterpriseId! : t.teamId, t);
    // Every workspace has its #general, the bot in it (an org-wide install: each of the org's).
    for (const id of [t.teamId, ...(t.orgTeams ?? [])])
      if (!this.channels.has(this.generalOf(id)))
        this.addChannel({ id: this.generalOf(id), name: "general", team: id });
    return t;
  }

  /** A workspace's #general: C0GENERAL for the fake's own team, C<team id>GENERAL for one added (addTeam). */
  generalOf(teamId: string = this.teamId): string {
    return teamId === this.teamId ? "C0GENERAL" : `C${teamId}GENERAL`;
  }

  /** The code Slack puts in the redirect once a person of `team` clicks "Allow" (usable once). */
  authorizeCode(team: FakeTeam, redirectUri?: string): string {
    const code = `code-${randomBytes(8).toString("hex")}`;
    this.codes.set(code, { team: team.isEnterpriseInstall ? team.enterpriseId! : team.teamId, redirectUri });
    return code;
  }

  /** Calls of oauth.v2.access that spent a refresh token (grant_type=refresh_token) and got a new one. */
  refreshCalls(): RecordedCall[] {
    return this.callsOf("oauth.v2.access").filter(
      (c) => c.args.grant_type === "refresh_token" && c.response.ok === true,
    );
  }

  /** A person of a workspace (`team`, a team id; default the fake's own). */
  addUser(user: FakeUser): FakeUser {
    this.users.set(user.id, { team: this.teamId, ...user });
    return user;
  }

  /** A channel of a workspace (`team`, a team id; default the fake's own). */
  addChannel(channel: FakeChannel): FakeChannel {
    this.channels.set(channel.id, {
      is_private: false,
      is_member: !channel.is_private,
      team: this.teamId,
      ...channel,
    });
    return channel;
  }

  /** A message a person typed in a channel (or a thread), so the bot can react to it; returns its ts. */
  addUserMessage(m: { channel: string; user: string; text: string; thread_ts?: string }): FakeMessage {
    const msg: FakeMessage = { ...m, ts: this.ts(), team: this.channels.get(m.channel)?.team ?? this.teamId };
    this.messages.push(msg);
    return msg;
  }

  /** The workspaces (team ids) a caller's token reaches: its own; an org-wide install's, every one of its org. */
  private reachable(caller: Caller): Set<string> {
    const team = caller.team === this.teamId ? undefined : this.teams.get(caller.team);
    if (!team) return new Set([caller.team]);
    return new Set([caller.team, team.teamId, ...(team.orgTeams ?? [])]);
  }

  /** A channel by id, when the caller's workspace has it (another workspace's is not found, as in Slack). */
  private channelOf(id: unknown, caller: Caller): FakeChannel | undefined {
    const c = this.channels.get(String(id));
    return c && this.reachable(caller).has(c.team ?? this.teamId) ? c : undefined;
  }

  /** A person by id, when the caller's workspace has them. */
  private userOf(id: unknown, caller: Caller): FakeUser | undefined {
    const u = this.users.get(String(id));
    return u && this.reachable(caller).has(u.team ?? this.teamId) ? u : undefined;
  }

  /** A message the caller's workspace can see: in one of its channels (or its DMs), not deleted. */
  private messageOf(channel: unknown, ts: unknown, caller: Caller): FakeMessage | undefined {
    const reach = this.reachable(caller);
    return this.messages.find(
      (m) => m.channel === channel && m.ts === ts && !m.deleted && reach.has(m.team ?? this.teamId),
    );
  }

  /** A user group and its members; listed by usergroups.list for `team` (default: the default workspace). */
  setUserGroup(
    id: string,
    userIds: string[],
    opts: { name?: string; handle?: string; team?: string } = {},
  ): void {
    this.userGroups.set(id, userIds);
    const team = opts.team ?? this.teamId;
    const groups = this.groupsByTeam.get(team) ?? new Map();
    const handle = opts.handle ?? id.toLowerCase();
    groups.set(id, { id, name: opts.name ?? handle, handle });
    this.groupsByTeam.set(team, groups);
  }

  /** A workspace whose plan has no user groups: usergroups.list answers plan_upgrade_required. */
  setPlanWithoutUserGroups(team: string = this.teamId): void {
    this.noUserGroups.add(team);
  }

  addFile(file: Omit<FakeFile, "id"> & { id?: string }): FakeFile {
    const f: FakeFile = { id: file.id ?? this.id("F"), ...file };
    this.files.set(f.id, f);
    return f;
  }

  /** Declares custom steps (manifest.yml's `functions`): executions and outputs are checked against them. */
  defineFunctions(defs: Record<string, FakeFunctionDef>): void {
    for (const [callbackId, def] of Object.entries(defs)) this.functions.set(callbackId, def);
  }

  /**
   * A workflow reaches a custom step: the execution Slack creates (running,
   * with its own bot_access_token) and the `function_executed` event Slack
   * sends for it, inner part, as the Events API wraps it.
   */
  executeFunction(
    callbackId: string,
    inputs: Json,
    opts: { workflowExecutionId?: string; team?: string } = {},
  ): { execution: FakeExecution; event: Json } {
    const def = this.functions.get(callbackId);
    if (!def) throw new Error(`fake Slack: no function ${callbackId} defined (defineFunctions)`);
    const execution: FakeExecution = {
      id: this.id("Fx"),
      callbackId,
      workflowExecutionId: opts.workflowExecutionId ?? this.id("Wx"),
      inputs,
      token: `xwfp-${randomBytes(12).toString("hex")}`,
      team: opts.team ?? this.teamId,
      state: "running",
    };
    this.executions.set(execution.id, execution);
    return { execution, event: this.functionEvent(execution) };
  }

  /** The `function_executed` event of an execution (for a redelivery of the same one). */
  functionEvent(execution: FakeExecution): Json {
    const def = this.functions.get(execution.callbackId)!;
    const params = (map: Record<string, FakeParam>) =>
      Object.entries(map).map(([name, p]) => ({ name, ...p }));
    return {
      type: "function_executed",
      function: {
        id: `Fn${execution.callbackId.toUpperCase().slice(0, 8)}`,
        callback_id: execution.callbackId,
        title: def.title,
        description: def.description,
        type: "app",
        input_parameters: params(def.input_parameters),
        output_parameters: params(def.output_parameters),
        app_id: "A0SWITCH",
        date_created: 1_700_000_000,
        date_updated: 1_700_000_000,
        date_deleted: 0,
      },
      inputs: execution.inputs,
      function_execution_id: execution.id,
      workflow_execution_id: execution.workflowExecutionId,
      event_ts: `${this.now() / 1000}`,
      bot_access_token: execution.token,
    };
  }

  /** A response_url as Slack puts in commands and actions: 5 uses. */
  newResponseUrl(): string {
    const id = this.id("R");
    this.responseUrls.set(id, { uses: 0 });
    return `${this.url}/response/${id}`;
  }

  /**
   * A trigger_id valid for triggerTtlMs from now, usable once, by the token of
   * the workspace it was issued to (`team`: a FakeSender's key; default the
   * fake's own team). `view`: issued from inside that view (a click in a
   * modal, a submission), as views.push needs.
   */
  newTriggerId(team: string = this.teamId, view?: string): string {
    const id = `${this.seq + 1}.${randomBytes(6).toString("hex")}`;
    this.seq += 1;
    this.triggers.set(id, { issuedAt: this.now(), used: false, team, ...(view ? { view } : {}) });
    return id;
  }

  /**
   * The workspace a request comes from: the fake's own team (no argument, or
   * its team id), a team added with addTeam (by team id or key), or else a
   * workspace the fake does not know (a stranger), keyed by its team id.
   */
  sender(teamId?: string, botUserId?: string): FakeSender {
    if (teamId === undefined || teamId === this.teamId)
      return {
        key: this.teamId,
        teamId: this.teamId,
        botUserId: botUserId ?? this.botUserId,
        isEnterpriseInstall: false,
      };
    const team =
      this.teams.get(teamId) ??
      [...this.teams.values()].find(
        (t) => t.teamId === teamId || (t.isEnterpriseInstall && t.orgTeams?.includes(teamId)),
      );
    if (!team)
      return { key: teamId, teamId, botUserId: botUserId ?? this.botUserId, isEnterpriseInstall: false };
    return {
      key: team.isEnterpriseInstall ? team.enterpriseId! : team.teamId,
      // Org-wide: the workspace asked for (one of the org's), sending with the org's installation.
      teamId: team.isEnterpriseInstall && team.orgTeams?.includes(teamId) ? teamId : team.teamId,
      botUserId: botUserId ?? team.botUserId,
      ...(team.enterpriseId ? { enterpriseId: team.enterpriseId } : {}),
      isEnterpriseInstall: team.isEnterpriseInstall,
    };
  }

  /** A view the app opened, pushed, updated or published (undefined when Slack has none by that id). */
  view(id: string): FakeView | undefined {
    return this.views.get(id);
  }

  // ---- inspection ---------------------------------------------------------

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  responsesTo(responseUrl: string): RecordedResponse[] {
    const id = responseUrl.split("/").pop();
    return this.responses.filter((r) => r.id === id);
  }

  /** Resolves when `check` returns a value; re-checked after every recorded call. Fails after timeoutMs. */
  waitFor<T>(check: () => T | undefined | false | null, timeoutMs = 10_000, what = "condition"): Promise<T> {
    return waitForEvent(this.events, "record", check, timeoutMs, `fake Slack: timed out waiting for ${what}`);
  }

  /** Waits for the n-th (1-based) successful call of a method. */
  waitForCall(method: string, n = 1, timeoutMs?: number): Promise<RecordedCall> {
    return this.waitFor(
      () => this.calls.filter((c) => c.method === method && c.response.ok === true)[n - 1],
      timeoutMs,
      `${n} successful ${method}`,
    );
  }

  /** Waits for the n-th post to a response_url. */
  waitForResponse(responseUrl: string, n = 1, timeoutMs?: number): Promise<RecordedResponse> {
    return this.waitFor(
      () => this.responsesTo(responseUrl)[n - 1],
      timeoutMs,
      `${n} post(s) to ${responseUrl}`,
    );
  }

  // ---- HTTP ---------------------------------------------------------------

  private id(prefix: string): string {
    this.seq += 1;
    return `${prefix}${this.seq.toString().padStart(6, "0")}${randomBytes(2).toString("hex").toUpperCase()}`;
  }

  private ts(): string {
    this.seq += 1;
    return `${Math.floor(this.now() / 1000)}.${this.seq.toString().padStart(6, "0")}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const raw = await readBody(req);
    const [kind, id = ""] = url.pathname.split("/").filter(Boolean);
    if (req.method === "POST" && kind === "api" && id) return this.api(id, req, raw, res);
    if (req.method === "POST" && kind === "response" && id) return this.responseUrl(id, req, raw, res);
    if (req.method === "POST" && kind === "upload" && id) return this.upload(id, req, raw, res);
    if (req.method === "GET" && kind === "files" && id) return this.download(id, req, res);
    if (req.method === "GET" && url.pathname === "/oauth/v2/authorize") return this.consent(url, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  }

  private async api(method: string, req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> {
    const args = parseArgs(req, raw);
    const auth = req.headers.authorization;
    const token = auth?.startsWith("Bearer ")
      ? auth.slice(7)
      : typeof args.token === "string"
        ? args.token
        : undefined;
    delete args.token;
    let status = 200;
    let response: Json;
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
    const workflow = token ? [...this.executions.values()].find((e) => e.token === token) : undefined;
    const teamToken = token ? this.teamTokens.get(token) : undefined;
    if (method === "oauth.v2.access") response = this.oauthAccess(args, req);
    else if (!token) response = { ok: false, error: "not_authed" };
    else if (method === "apps.connections.open")
      response = token === this.appToken ? this.socketMode.open() : { ok: false, error: "invalid_auth" };
    else if (teamToken && teamToken.expiresAt <= this.now()) response = { ok: false, error: "token_expired" };
    else if (method === "auth.test" && teamToken) response = this.teamAuthTest(teamToken.team);
    else if (token !== this.botToken && !workflow && !teamToken)
      response = { ok: false, error: "invalid_auth" };
    else if (
      workflow &&
      workflow.state !== "running" &&
      method !== "functions.completeSuccess" &&
      method !== "functions.completeError"
    )
      // A workflow token is good while its step runs.
      response = { ok: false, error: "token_expired" };
    else if (method.startsWith("functions.") && workflow && args.function_execution_id !== workflow.id)
      response = { ok: false, error: "access_denied" };
    else {
      const handler = this.methods[method];
      if (!handler) {
        status = 404;
        response = { ok: false, error: "unknown_method" };
      } else if ((this.refusals.get(method)?.count ?? 0) > 0) {
        const refusal = this.refusals.get(method)!;
        refusal.count -= 1;
        response = { ok: false, error: refusal.error };
      } else {
        // The workspace of the token: a team's (oauth.v2.access), a workflow's, else the fake's own (its bot token).
        const out = handler(args, { team: teamToken?.team ?? workflow?.team ?? this.teamId });
        const outage = this.outages.get(method);
        if (outage && outage.count > 0) {
          // The call took effect (a message really posted), but its answer is
          // lost: a 500 as a load balancer in front of Slack can give.
          outage.count -= 1;
          status = 500;
          response = { ok: false, error: "internal_error" };
        } else if ("retryAfter" in out) {
          status = 429;
          headers["retry-after"] = String(out.retryAfter);
          response = { ok: false, error: "ratelimited" };
        } else response = out;
      }
    }
    this.calls.push({
      method,
      args,
      at: this.now(),
      response,
      status,
      ...(teamToken ? { team: teamToken.team } : {}),
    });
    res.writeHead(status, headers).end(JSON.stringify(response));
    this.events.emit("record");
  }

  private async responseUrl(
    id: string,
    req: IncomingMessage,
    raw: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const url = this.responseUrls.get(id);
    let body: Json = {};
    let status = 200;
    let error: string | undefined;
    try {
      body = parseArgs(req, raw);
    } catch {
      error = "invalid_payload";
    }
    if (!error) {
      if (!url) error = "no_such_response_url";
      else if (url.uses >= 5) error = "used_url";
      else if (this.responsesRefused?.(body)) error = "expired_url";
      else error = messageProblem(body, { responseUrl: true })?.error as string | undefined;
    }
    if (error)
      status =
        error === "no_such_response_url" || error === "used_url" || error === "expired_url" ? 404 : 400;
    else if (url) url.uses += 1;
    this.responses.push({ id, body, at: this.now(), status, error });
    res.writeHead(status, { "content-type": "text/plain" }).end(error ?? "ok");
    this.events.emit("record");
  }

  private async upload(
    fileId: string,
    req: IncomingMessage,
    raw: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const pending = this.pendingUploads.get(fileId);
    if (!pending) {
      res.writeHead(404).end("no such upload");
      return;
    }
    const type = req.headers["content-type"] ?? "";
    if (type.startsWith("multipart/form-data")) {
      const form = await new Request("http://x/", {
        method: "POST",
        headers: { "content-type": type },
        body: raw,
      }).formData();
      const file = [...form.values()].find((v) => typeof v !== "string");
      pending.content = file ? Buffer.from(await (file as Blob).arrayBuffer()) : Buffer.alloc(0);
    } else pending.content = raw;
    res.writeHead(200, { "content-type": "text/plain" }).end(`OK - ${pending.content.length}`);
    this.events.emit("record");
  }

  private download(fileId: string, req: IncomingMessage, res: ServerResponse): void {
    const auth = req.headers.authorization;
    // The app's bot token, or an installed workspace's (still valid).
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
    const teamToken = token ? this.teamTokens.get(token) : undefined;
    const valid = token === this.botToken || (teamToken !== undefined && teamToken.expiresAt > this.now());
    if (!valid) {
      // Slack answers a login page, not the file, without the token.
      res.writeHead(302, { location: `${this.url}/login` }).end();
      return;
    }
    if (!this.filesRead) {
      // Without files:read Slack answers its login page, with 200.
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in</body></html>");
      return;
    }
    const file = this.files.get(fileId);
    if (!file) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": file.mimetype ?? "application/octet-stream",
      "content-length": String(file.content.length),
    });
    res.end(file.content);
  }

  // ---- OAuth ("Add to Slack") ---------------------------------------------

  /**
   * slack.com/oauth/v2/authorize, once the person clicked "Allow": a redirect
   * to redirect_uri with a code and the state. `team` (Slack's own parameter)
   * picks the workspace; else the only one added.
   */
  private consent(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const wanted = q.get("team");
    const team = wanted
      ? [...this.teams.values()].find((t) => t.teamId === wanted || t.enterpriseId === wanted)
      : this.teams.size === 1
        ? [...this.teams.values()][0]
        : undefined;
    const redirect = q.get("redirect_uri") ?? undefined;
    if (q.get("client_id") !== this.clientId || !team || !redirect) {
      res.writeHead(400, { "content-type": "text/plain" }).end("invalid_client_id, team or redirect_uri");
      return;
    }
    const back = new URL(redirect);
    back.searchParams.set("code", this.authorizeCode(team, redirect));
    back.searchParams.set("state", q.get("state") ?? "");
    res.writeHead(302, { location: back.toString() }).end();
  }

  /** oauth.v2.access: the code grant (an install) and the refresh grant (token rotation). */
  private oauthAccess(a: Json, req: IncomingMessage): Json {
    const basic = req.headers.authorization?.startsWith("Basic ")
      ? Buffer.from(req.headers.authorization.slice(6), "base64").toString("utf8").split(":")
      : undefined;
    const [id, secret] = basic ?? [a.client_id, a.client_secret];
    if (id !== this.clientId) return { ok: false, error: "invalid_client_id" };
    if (secret !== this.clientSecret) return { ok: false, error: "bad_client_secret" };
    if (a.grant_type === "refresh_token") {
      const key = typeof a.refresh_token === "string" ? this.refreshTokens.get(a.refresh_token) : undefined;
      if (!key) return { ok: false, error: "invalid_refresh_token" };
      this.refreshTokens.delete(a.refresh_token as string); // spent: Slack takes a refresh token once
      return { ...this.grant(this.teams.get(key)!), token_type: "bot" };
    }
    const code = typeof a.code === "string" ? this.codes.get(a.code) : undefined;
    if (!code) return { ok: false, error: "invalid_code" };
    this.codes.delete(a.code as string);
    if (code.redirectUri && a.redirect_uri !== undefined && a.redirect_uri !== code.redirectUri)
      return { ok: false, error: "bad_redirect_uri" };
    const team = this.teams.get(code.team)!;
    return {
      ...this.grant(team),
      token_type: "bot",
      authed_user: { id: team.installerUserId },
    };
  }

  /** A new bot token (and refresh token with rotation) for the team, as oauth.v2.access answers. */
  private grant(team: FakeTeam): Json {
    const key = team.isEnterpriseInstall ? team.enterpriseId! : team.teamId;
    team.botToken = `${team.rotation ? "xoxe.xoxb" : "xoxb"}-${key}-${randomBytes(12).toString("hex")}`;
    this.teamTokens.set(team.botToken, {
      team: key,
      expiresAt: team.rotation ? this.now() + this.tokenTtlSeconds * 1000 : Number.POSITIVE_INFINITY,
    });
    if (team.rotation) {
      team.refreshToken = `xoxe-1-${key}-${randomBytes(12).toString("hex")}`;
      this.refreshTokens.set(team.refreshToken, key);
    }
    return {
      ok: true,
      app_id: this.appId,
      scope: "commands,chat:write",
      access_token: team.botToken,
      bot_user_id: team.botUserId,
      ...(team.rotation ? { refresh_token: team.refreshToken, expires_in: this.tokenTtlSeconds } : {}),
      team: team.isEnterpriseInstall ? null : { id: team.teamId, name: team.teamName },
      enterprise: team.enterpriseId
        ? { id: team.enterpriseId, name: team.enterpriseName ?? team.enterpriseId }
        : null,
      is_enterprise_install: team.isEnterpriseInstall,
    };
  }

  private teamAuthTest(key: string): Json {
    const team = this.teams.get(key)!;
    return {
      ok: true,
      url: `https://${team.teamId.toLowerCase()}.fake.slack.com/`,
      team: team.teamName,
      user: "switchboard",
      team_id: team.teamId,
      user_id: team.botUserId,
      bot_id: team.botId,
      ...(team.enterpriseId ? { enterprise_id: team.enterpriseId } : {}),
      is_enterprise_install: team.isEnterpriseInstall,
    };
  }

  // ---- methods ------------------------------------------------------------

  private fileJson(f: FakeFile): Json {
    return {
      id: f.id,
      name: f.name,
      title: f.title ?? f.name,
      mimetype: f.mimetype ?? "application/octet-stream",
      filetype: f.filetype ?? f.name.split(".").pop(),
      size: f.content.length,
      user: f.user,
      channels: f.channels ?? [],
      url_private: `${this.url}/files/${f.id}/${encodeURIComponent(f.name)}`,
      url_private_download: `${this.url}/files/${f.id}/download/${encodeURIComponent(f.name)}`,
    };
  }

  /** Where the caller may post: a channel of its workspace the bot may write in, or a DM with one of its people. */
  private postable(channel: unknown, caller: Caller): { error: string } | { channel: string; team: string } {
    if (typeof channel !== "string" || !channel) return { error: "channel_not_found" };
    const person = this.userOf(channel, caller);
    if (person) return { channel, team: person.team ?? this.teamId }; // a DM with the bot
    const c = this.channelOf(channel, caller);
    if (!c) return { error: "channel_not_found" };
    if ((c.is_private || c.is_im) && !c.is_member) return { error: "not_in_channel" };
    return { channel, team: c.team ?? this.teamId };
  }

  /** Why Slack refuses this trigger from this caller: a trigger is one workspace's (invalid_trigger_id elsewhere). */
  private triggerProblem(triggerId: unknown, caller: Caller): string | undefined {
    if (typeof triggerId !== "string" || !triggerId) return "invalid_arguments";
    const t = this.triggers.get(triggerId);
    if (!t || t.team !== caller.team) return "invalid_trigger_id";
    if (t.used) return "exchanged_trigger_id";
    if (this.now() - t.issuedAt > this.triggerTtlMs) return "expired_trigger_id";
    t.used = true;
    return undefined;
  }

  /** The execution named by `function_execution_id`, while it runs: else Slack's error. */
  private runningExecution(a: Json, required: string): FakeExecution | { ok: false; error: string } {
    if (typeof a.function_execution_id !== "string" || !a.function_execution_id || a[required] === undefined)
      return { ok: false, error: "invalid_arguments" };
    const run = this.executions.get(a.function_execution_id);
    if (!run) return { ok: false, error: "function_execution_not_found" };
    if (run.state !== "running") return { ok: false, error: "execution_not_in_running_state" };
    return run;
  }

  /**
   * What Slack says of the workspace `key` in a view: the team it is in and
   * the team that installed the app. An org-wide install's views are in its
   * workspace (FakeTeam.teamId) and installed by the enterprise (its id), as
   * Slack puts it in `app_installed_team_id`.
   */
  private viewTeam(key: string): Pick<FakeView, "teamId" | "appInstalledTeamId" | "enterpriseId"> {
    const team = key === this.teamId ? undefined : this.teams.get(key);
    if (!team) return { teamId: key, appInstalledTeamId: key };
    return {
      teamId: team.teamId,
      appInstalledTeamId: team.isEnterpriseInstall ? team.enterpriseId! : team.teamId,
      ...(team.enterpriseId ? { enterpriseId: team.enterpriseId } : {}),
    };
  }

  /** Stores the view for the caller's workspace (an update keeps the view's own). */
  private storeView(view: Json, caller: Caller, user?: string, existing?: FakeView): Json {
    const team = existing?.team ?? caller.team;
    const stored: FakeView = {
      id: existing?.id ?? this.id("V"),
      hash: `${this.now()}.${randomBytes(4).toString("hex")}`,
      view,
      user: user ?? existing?.user,
      external_id: typeof view.external_id === "string" ? view.external_id : existing?.external_id,
      team,
      ...this.viewTeam(team),
    };
    this.views.set(stored.id, stored);
    return {
      ok: true,
      view: {
        ...view,
        id: stored.id,
        hash: stored.hash,
        team_id: stored.teamId,
        app_installed_team_id: stored.appInstalledTeamId,
      },
    };
  }

  private readonly methods: Record<string, (a: Json, caller: Caller) => Json | { retryAfter: number }> = {
    "auth.test": () => ({
      ok: true,
      url: "https://fake.slack.com/",
      team: "Fake",
      user: "switchboard",
      team_id: this.teamId,
      user_id: this.botUserId,
      bot_id: this.botId,
    }),
    "chat.postMessage": (a, caller) => {
      const target = this.postable(a.channel, caller);
      if ("error" in target) return { ok: false, error: target.error };
      const problem = messageProblem(a, {});
      if (problem) return { ok: false, ...problem };
      const fileProblems = slackFileProblems(a.blocks, this.fileReady);
      if (fileProblems.length)
        return { ok: false, error: "invalid_blocks", response_metadata: { messages: fileProblems } };
      const imageProblems = imageUrlProblems(a.blocks, this.imageUrlFetchable);
      if (imageProblems.length)
        return {
          ok: false,
          error: "invalid_blocks",
          errors: imageProblems.map((m) => m.replace("[ERROR] ", "")),
          response_metadata: { messages: imageProblems },
        };
      // Slack: 1 message a second per channel. A sliding 1 s window keeps it deterministic.
      const now = this.now();
      const recent = (this.postTimes.get(target.channel) ?? []).filter((t) => now - t < 1000);
      if (recent.length >= 1) return { retryAfter: 1 };
      recent.push(now);
      this.postTimes.set(target.channel, recent);
      const msg: FakeMessage = {
        channel: target.channel,
        team: target.team,
        ts: this.ts(),
        text: a.text as string | undefined,
        blocks: a.blocks as unknown[] | undefined,
        thread_ts: a.thread_ts as string | undefined,
        ...(a.metadata ? { metadata: a.metadata as FakeMessage["metadata"] } : {}),
      };
      this.messages.push(msg);
      return {
        ok: true,
        channel: msg.channel,
        ts: msg.ts,
        message: { ...msg, user: this.botUserId, bot_id: this.botId },
      };
    },
    "chat.postEphemeral": (a, caller) => {
      const target = this.postable(a.channel, caller);
      if ("error" in target) return { ok: false, error: target.error };
      if (!this.userOf(a.user, caller)) return { ok: false, error: "user_not_found" };
      const problem = messageProblem(a, {});
      if (problem) return { ok: false, ...problem };
      return { ok: true, message_ts: this.ts() };
    },
    "chat.update": (a, caller) => {
      const msg = this.messageOf(a.channel, a.ts, caller);
      if (!msg) return { ok: false, error: "message_not_found" };
      const problem = messageProblem(a, {});
      if (problem) return { ok: false, ...problem };
      if (a.text !== undefined) msg.text = a.text as string;
      if (a.blocks !== undefined) msg.blocks = a.blocks as unknown[];
      return { ok: true, channel: msg.channel, ts: msg.ts, text: msg.text };
    },
    "chat.delete": (a, caller) => {
      const msg = this.messageOf(a.channel, a.ts, caller);
      if (!msg) return { ok: false, error: "message_not_found" };
      msg.deleted = true;
      return { ok: true, channel: msg.channel, ts: msg.ts };
    },
    "views.open": (a, caller) => {
      const problems = checkView(a.view);
      if (problems.length) return invalid(problems);
      const trig = this.triggerProblem(a.trigger_id, caller);
      if (trig) return { ok: false, error: trig };
      return this.storeView(a.view as Json, caller);
    },
    "views.push": (a, caller) => {
      const problems = checkView(a.view);
      if (problems.length) return invalid(problems);
      // Pushed onto the view the trigger came from: another workspace's view is not found.
      const from = typeof a.trigger_id === "string" ? this.triggers.get(a.trigger_id)?.view : undefined;
      const onto = from ? this.views.get(from) : undefined;
      if (onto && onto.team !== caller.team) return { ok: false, error: "not_found" };
      const trig = this.triggerProblem(a.trigger_id, caller);
      if (trig) return { ok: false, error: trig };
      return this.storeView(a.view as Json, caller);
    },
    "views.update": (a, caller) => {
      // A view (or an external id) of another workspace is not found with this token.
      const existing =
        typeof a.view_id === "string"
          ? this.views.get(a.view_id)
          : [...this.views.values()].find(
              (v) => v.external_id && v.external_id === a.external_id && v.team === caller.team,
            );
      if (!existing || existing.team !== caller.team) return { ok: false, error: "not_found" };
      if (a.hash !== undefined && a.hash !== existing.hash) return { ok: false, error: "hash_conflict" };
      const problems = checkView(a.view);
      if (problems.length) return invalid(problems);
      return this.storeView(a.view as Json, caller, undefined, existing);
    },
    "views.publish": (a, caller) => {
      if (typeof a.user_id !== "string" || !a.user_id) return { ok: false, error: "invalid_arguments" };
      if ((a.view as Json | undefined)?.type !== "home")
        return invalid(["[ERROR] must be home [json-pointer:/view/type]"]);
      const problems = checkView(a.view);
      if (problems.length) return invalid(problems);
      const existing = [...this.views.values()].find(
        (v) => v.user === a.user_id && v.view.type === "home" && v.team === caller.team,
      );
      return this.storeView(a.view as Json, caller, a.user_id, existing);
    },
    "users.info": (a, caller) => {
      const u = this.userOf(a.user, caller);
      if (!u) return { ok: false, error: "user_not_found" };
      return {
        ok: true,
        user: {
          id: u.id,
          name: u.name,
          real_name: u.real_name ?? u.name,
          tz: u.tz ?? "America/Los_Angeles",
          tz_offset: u.tz_offset ?? -28800,
          is_bot: u.is_bot ?? false,
          is_admin: u.is_admin ?? false,
          is_owner: u.is_owner ?? false,
          profile: { display_name: u.name, real_name: u.real_name ?? u.name },
        },
      };
    },
    "usergroups.list": (_a, caller) => {
      if (this.noUserGroups.has(caller.team)) return { ok: false, error: "plan_upgrade_required" };
      const groups = [...(this.groupsByTeam.get(caller.team)?.values() ?? [])];
      return {
        ok: true,
        usergroups: groups.map((g) => ({ ...g, team_id: caller.team, is_usergroup: true, date_delete: 0 })),
      };
    },
    "usergroups.users.list": (a, caller) => {
      // Another workspace's group is none of this one's.
      const users = this.groupsByTeam.get(caller.team)?.has(String(a.usergroup))
        ? this.userGroups.get(String(a.usergroup))
        : undefined;
      if (!users) return { ok: false, error: "no_such_subteam" };
      return { ok: true, users };
    },
    "conversations.info": (a, caller) => {
      const c = this.channelOf(a.channel, caller);
      if (!c) return { ok: false, error: "channel_not_found" };
      return { ok: true, channel: { ...c } };
    },
    "functions.completeSuccess": (a) => {
      const run = this.runningExecution(a, "outputs");
      if ("ok" in run) return run;
      const outputs = a.outputs;
      if (outputs === null || typeof outputs !== "object" || Array.isArray(outputs))
        return { ok: false, error: "invalid_arguments" };
      const problems = outputProblems(this.functions.get(run.callbackId), outputs as Json);
      if (problems.length)
        return { ok: false, error: "parameter_validation_failed", response_metadata: { messages: problems } };
      run.state = "completed";
      run.outputs = outputs as Json;
      return { ok: true };
    },
    "functions.completeError": (a) => {
      const run = this.runningExecution(a, "error");
      if ("ok" in run) return run;
      if (typeof a.error !== "string" || !a.error.trim()) return { ok: false, error: "invalid_arguments" };
      run.state = "failed";
      run.error = a.error;
      return { ok: true };
    },
    "conversations.join": (a, caller) => {
      const c = this.channelOf(a.channel, caller);
      if (!c) return { ok: false, error: "channel_not_found" };
      // Slack: a bot cannot join a private channel by itself; someone invites it.
      if (c.is_private || c.is_im) return { ok: false, error: "method_not_supported_for_channel_type" };
      const already = c.is_member === true;
      c.is_member = true;
      return { ok: true, channel: { ...c }, ...(already ? { warning: "already_in_channel" } : {}) };
    },
    "conversations.history": (a, caller) => {
      const c = this.channelOf(a.channel, caller);
      if (!c || ((c.is_private || c.is_im) && !c.is_member)) return { ok: false, error: "channel_not_found" };
      const limit = Number(a.limit ?? 100);
      const withMetadata = a.include_all_metadata === true || a.include_all_metadata === "true";
      const messages = this.messages
        .filter((m) => m.channel === c.id && !m.deleted && !m.thread_ts)
        .slice(-limit)
        .reverse()
        .map((m) => (withMetadata ? m : { ...m, metadata: undefined }));
      return { ok: true, messages, has_more: false };
    },
    // A thread, parent first, oldest first; metadata only when asked (include_all_metadata), as Slack.
    "conversations.replies": (a, caller) => {
      const c = this.channelOf(a.channel, caller);
      if (!c || ((c.is_private || c.is_im) && !c.is_member)) return { ok: false, error: "channel_not_found" };
      const parent = this.messages.find((m) => m.channel === c.id && m.ts === a.ts && !m.thread_ts);
      if (!parent) return { ok: false, error: "thread_not_found" };
      const withMetadata = a.include_all_metadata === true || a.include_all_metadata === "true";
      const messages = [parent, ...this.messages.filter((m) => m.channel === c.id && m.thread_ts === a.ts)]
        .filter((m) => !m.deleted)
        .slice(0, Number(a.limit ?? 1000))
        .map((m) => (withMetadata ? m : { ...m, metadata: undefined }));
      return { ok: true, messages, has_more: false };
    },
    "reactions.add": (a, caller) => {
      const msg = this.messageOf(a.channel, a.timestamp, caller);
      if (!msg) return { ok: false, error: "message_not_found" };
      if (typeof a.name !== "string" || !a.name) return { ok: false, error: "invalid_name" };
      msg.reactions ??= [];
      if (msg.reactions.includes(a.name)) return { ok: false, error: "already_reacted" };
      msg.reactions.push(a.name);
      return { ok: true };
    },
    "files.info": (a) => {
      const f = this.files.get(String(a.file));
      if (!f) return { ok: false, error: "file_not_found" };
      return { ok: true, file: this.fileJson(f) };
    },
    "files.getUploadURLExternal": (a) => {
      const length = Number(a.length);
      if (typeof a.filename !== "string" || !a.filename || !Number.isInteger(length) || length < 1)
        return { ok: false, error: "invalid_arguments" };
      const fileId = this.id("F");
      this.pendingUploads.set(fileId, { filename: a.filename, length });
      return { ok: true, upload_url: `${this.url}/upload/${fileId}`, file_id: fileId };
    },
    "files.completeUploadExternal": (a, caller) => {
      const list = a.files;
      if (!Array.isArray(list) || list.length === 0) return { ok: false, error: "invalid_arguments" };
      const done: Json[] = [];
      for (const item of list as Json[]) {
        const pending = this.pendingUploads.get(String(item.id));
        if (!pending?.content) return { ok: false, error: "file_not_found" };
        this.pendingUploads.delete(String(item.id));
        const channel = typeof a.channel_id === "string" ? a.channel_id : undefined;
        if (channel) {
          const target = this.postable(channel, caller);
          if ("error" in target) return { ok: false, error: target.error };
        }
        const f = this.addFile({
          id: String(item.id),
          name: pending.filename,
          title: typeof item.title === "string" ? item.title : pending.filename,
          content: pending.content,
          channels: channel ? [channel] : [],
        });
        if (this.fileProcessingPosts > 0) this.processing.set(f.id, this.fileProcessingPosts);
        done.push(this.fileJson(f));
      }
      return { ok: true, files: done };
    },
  };
}

/** Outputs checked against the step's output parameters, as Slack checks them. */
function outputProblems(def: FakeFunctionDef | undefined, outputs: Json): string[] {
  if (!def) return [];
  const problems: string[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    const p = def.output_parameters[name];
    if (!p) problems.push(`[ERROR] unknown output parameter ${name}`);
    else if (value !== null && value !== undefined && !fitsType(p.type, value))
      problems.push(`[ERROR] output parameter ${name} must be of type ${p.type}`);
  }
  for (const [name, p] of Object.entries(def.output_parameters))
    if (p.is_required && (outputs[name] === undefined || outputs[name] === null))
      problems.push(`[ERROR] missing required output parameter ${name}`);
  return problems;
}

function fitsType(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "slack#/types/user_id":
    case "slack#/types/channel_id":
      return typeof value === "string" && /^[A-Z][A-Z0-9]+$/.test(value);
    default:
      return true;
  }
}

function invalid(messages: string[]): Json {
  return { ok: false, error: "invalid_arguments", response_metadata: { messages } };
}

/** What Slack would refuse in a message body (chat.* or response_url). */
function messageProblem(a: Json, opts: { responseUrl?: boolean }): Json | undefined {
  if (opts.responseUrl && a.delete_original === true) return undefined;
  const text = a.text;
  const hasBlocks = Array.isArray(a.blocks) && a.blocks.length > 0;
  if (a.blocks !== undefined) {
    const problems = checkMessageBlocks(a.blocks);
    if (problems.length) return { error: "invalid_blocks", response_metadata: { messages: problems } };
  }
  // Slack only warns about blocks without fallback text; the fake refuses so tests catch it.
  if (typeof text !== "string" || text.trim() === "") {
    return hasBlocks
      ? { error: "no_text", response_metadata: { messages: ["[ERROR] blocks given without fallback text"] } }
      : { error: "no_text" };
  }
  if (text.length > LIMITS.messageText) return { error: "msg_too_long" };
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseArgs(req: IncomingMessage, raw: Buffer): Json {
  const type = req.headers["content-type"] ?? "";
  if (raw.length === 0) return {};
  if (type.includes("application/json")) return JSON.parse(raw.toString("utf8")) as Json;
  const out: Json = {};
  for (const [k, v] of new URLSearchParams(raw.toString("utf8"))) {
    if (JSON_FIELDS.has(k)) {
      try {
        out[k] = JSON.parse(v);
      } catch {
        out[k] = v;
      }
    } else out[k] = v;
  }
  return out;
}
