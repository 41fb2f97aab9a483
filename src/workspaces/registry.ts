// The workspaces of a deployment, in either mode (issue 38 §1): a request's team → its runtime (runtime.ts),
// built on first use from its installation (installations.ts: the store's in many-workspace mode, the
// environment's one in single mode) and kept while recently used; told of every change of a workspace, here or,
// through the store's versions, on another replica.
import type { webApi } from "@slack/bolt";
import { valuesOf } from "../commands/workspace-admin.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { RequestTeam, SlackHooks, WorkspaceScope, WorkspaceSource } from "../slack/context.ts";
import { UnknownWorkspaceError, workspaceScope } from "../slack/tenancy/scope.ts";
import type { WorkspaceVersions } from "../store/workspace-changes.ts";
import { WorkspaceStores } from "../store/workspace-stores.ts";
import type { InstallationSource } from "./installations.ts";
import { notConnectedHooks } from "./not-connected-home.ts";
import { buildWorkspace, type DeploymentParts, slackPartsOf, type WorkspaceRuntime } from "./runtime.ts";

export interface RegistryOptions {
  shared: DeploymentParts;
  /** Where each workspace's installation comes from: the one difference between the modes. */
  source: InstallationSource;
  /** The messaging API every workspace's key is used at (MESSAGING_API_URL, or the embedded sandbox's). */
  baseUrl: string;
  /** The Slack side of a connected workspace, when its runtime is built: its hooks (Home tab, live progress) and background work. */
  slackHooks?: (rt: WorkspaceRuntime) => Promise<SlackHooks>;
  /** Whether a workspace's runtime runs background work (an inbox poller, live progress): it is then never dropped. */
  busy?: (id: WorkspaceId) => boolean;
  /** The embedded sandbox: an organization's channels by its key (named, the first the default). */
  channelsOf?: (apiKey: string) => Promise<Array<{ id: number; name: string }>>;
  /** How many workspaces' runtimes are kept between their requests (default 1,000; the rest are built again when used). */
  keep?: number;
  /**
   * Several replicas (PostgreSQL): each workspace's version, bumped with every change of its key, settings or
   * installation (src/store/workspace-changes.ts), read each time its runtime is asked for; a kept runtime older
   * than the version is built again. Unset (PGlite, one process): changes are told in-process (forget).
   */
  versions?: Pick<WorkspaceVersions, "version" | "versions">;
}

/** The workspaces of a deployment: a request's team → its runtime, built on first use from its installation
 * (its bot, its API key), kept while recently used. A workspace never sees
 * another's runtime: it is looked up by the request's own team id, and every store it holds is that workspace's. */
export class WorkspaceRegistry implements WorkspaceSource {
  private readonly opts: RegistryOptions;
  private readonly keep: number;
  private readonly live = new Map<WorkspaceId, Promise<WorkspaceRuntime | undefined>>();
  /** The bot clients of the runtimes built and kept, for Bolt's listeners to share (one client a workspace). */
  private readonly clients = new Map<WorkspaceId, webApi.WebClient>();

  constructor(opts: RegistryOptions) {
    this.opts = opts;
    // About 40 KiB a kept runtime (docs/benchmarks.md): 1,000 cost ~40 MB; a rebuild ~2 ms of CPU.
    this.keep = opts.keep ?? 1000;
  }

  /**
   * A request's workspace, from its team: connected (its runtime), installed
   * and not connected (help, connect and settings), else refused
   * (UnknownWorkspaceError: no default workspace to fall back on).
   */
  async resolve(team: RequestTeam): Promise<WorkspaceScope> {
    const id = this.opts.source.workspaceOf ? this.opts.source.workspaceOf(team) : team.teamId;
    if (!id) throw new UnknownWorkspaceError(undefined);
    const rt = await this.runtime(id, team.enterpriseId);
    if (rt) return this.scopeOfRuntime(rt);
    // Installed, not connected: help, connect and settings; everything else says how to connect.
    // stores: an installed workspace not connected has no runtime; its help, connect and settings use these
    const stores = new WorkspaceStores(this.opts.shared.db, id);
    const core = await this.opts.source.notConnected(id, stores, team.enterpriseId);
    if (!core) throw new UnknownWorkspaceError(id);
    return workspaceScope({
      workspace: id,
      core,
      stores,
      hooks: notConnectedHooks(core, stores),
      connected: false,
    });
  }

  /** A workspace's scope by its id, for work done outside a request (start-up recovery, background work). */
  scopeOf(id: WorkspaceId): Promise<WorkspaceScope> {
    return this.resolve({ teamId: id });
  }

  private scopeOfRuntime(rt: WorkspaceRuntime): WorkspaceScope {
    return workspaceScope({
      workspace: rt.id,
      core: rt.core,
      stores: rt.stores,
      hooks: { ...this.hooks.get(rt), ...this.appHooks },
      connected: true,
      workflowSteps: rt.settings.workflowSteps,
    });
  }

  /**
   * A connected workspace's runtime (built on first use), or undefined when it is not installed and connected.
   * Several replicas: the workspace's version is read first (one primary-key read), and a runtime built before
   * the last change (on any replica) is closed and built again: never an old key, old settings or a revoked token.
   */
  async runtime(id: WorkspaceId, enterpriseId?: string): Promise<WorkspaceRuntime | undefined> {
    const versions = this.opts.versions;
    if (!versions) return this.obtain(id, enterpriseId, 0);
    const now = await versions.version(id);
    if (this.opts.source.settingsOnly && this.live.has(id) && (this.built.get(id) ?? 0) < now) {
      // Its settings changed (nothing else can): applied to the runtime kept, its work going on.
      await this.renewSettings(id);
      this.built.set(id, now);
    }
    while (this.live.has(id) && (this.built.get(id) ?? 0) < now) await this.forget(id);
    return this.obtain(id, enterpriseId, now);
  }

  /**
   * A workspace changed on some replica (its notice): its kept runtime, if older, is closed at once, with its
   * background work; one that had background work (an inbox, live progress) is built again when it is still
   * connected, so that work goes on with the new key and settings.
   */
  async changed(id: WorkspaceId): Promise<void> {
    if (!this.live.has(id)) return;
    const now = (await this.opts.versions?.version(id)) ?? Number.POSITIVE_INFINITY;
    if (!this.live.has(id) || (this.built.get(id) ?? 0) >= now) return;
    await this.refresh(id);
  }

  /** Notices may have been missed (the listening connection was lost): every kept runtime checked in one read. */
  async resync(): Promise<void> {
    const ids = [...this.live.keys()];
    const now = await this.opts.versions?.versions(ids);
    if (!now) return;
    for (const id of ids) if ((now.get(id) ?? 0) > (this.built.get(id) ?? 0)) await this.refresh(id);
  }

  /** The workspace's runtime when one is kept in this process, as it is (never builds one). */
  kept(id: WorkspaceId): Promise<WorkspaceRuntime | undefined> | undefined {
    return this.live.get(id);
  }

  /** Forgets a workspace's runtime; built again at once when it was running background work (and is still connected). */
  async refresh(id: WorkspaceId): Promise<void> {
    if (this.opts.source.settingsOnly && this.live.has(id)) {
      await this.renewSettings(id);
      const now = await this.opts.versions?.version(id);
      if (now !== undefined) this.built.set(id, now);
      return;
    }
    const busy = this.opts.busy?.(id) ?? false;
    await this.forget(id);
    if (busy) await this.runtime(id).catch(() => undefined);
  }

  /** A kept runtime's effective settings read again and applied (its core's next call, its parts' next use). */
  private async renewSettings(id: WorkspaceId): Promise<void> {
    const rt = await this.live.get(id)?.catch(() => undefined);
    const admin = rt?.core.admin;
    if (rt && admin) rt.applySettings(valuesOf(await admin.settings()));
  }

  /**
   * The hooks a Slack app gives every scope (single mode: its Home tab, a test's hooks), over each runtime's own.
   * Set once, when the app is made (src/slack/app.ts's workspace source maker).
   */
  private appHooks: SlackHooks = {};

  /** This registry as a Slack app's workspace source, the app's hooks given to every scope. */
  withAppHooks(hooks: SlackHooks): this {
    this.appHooks = hooks;
    return this;
  }

  /** The version each kept runtime was built from (several replicas). */
  private readonly built = new Map<WorkspaceId, number>();

  private obtain(id: WorkspaceId, enterpriseId: string | undefined, version: number) {
    let pending = this.live.get(id);
    if (pending) {
      // Most recently used last: the Map's order is the eviction order.
      this.live.delete(id);
      this.live.set(id, pending);
      return pending;
    }
    pending = this.build(id, enterpriseId);
    const mine = pending;
    this.live.set(id, pending);
    this.built.set(id, version);
    // Not connected (or failed): nothing kept, the next request looks again.
    const drop = () => {
      if (this.live.get(id) !== mine) return;
      this.live.delete(id);
      this.built.delete(id);
    };
    pending.then((rt) => {
      if (!rt) drop();
    }, drop);
    this.evict();
    return pending;
  }

  /** A kept workspace's bot client, when its runtime is built (Bolt's listeners use it too: src/slack/tenancy/client-cache.ts). */
  slackClientOf(id: WorkspaceId): webApi.WebClient | undefined {
    return this.clients.get(id);
  }

  /** Forgets a workspace's runtime (after connect, disconnect, settings, uninstall): the next request builds it again. */
  async forget(id: WorkspaceId): Promise<void> {
    const pending = this.live.get(id);
    this.live.delete(id);
    this.built.delete(id);
    this.clients.delete(id);
    const rt = await pending?.catch(() => undefined);
    await rt?.close();
  }

  /** Every workspace with a messaging account (background work runs for each). */
  connectedIds(): Promise<WorkspaceId[]> {
    return this.opts.source.connectedIds();
  }

  async close(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    this.built.clear();
    this.clients.clear();
    for (const p of all) await (await p.catch(() => undefined))?.close();
  }

  private readonly hooks = new WeakMap<WorkspaceRuntime, SlackHooks>();

  /** Drops the least recently used runtimes past `keep`, except those running background work. */
  private evict(): void {
    let over = this.live.size - this.keep;
    for (const [id, pending] of this.live) {
      if (over <= 0) break;
      if (this.opts.busy?.(id)) continue;
      this.live.delete(id);
      this.built.delete(id);
      this.clients.delete(id);
      over -= 1;
      void pending.then((rt) => rt?.close()).catch(() => {});
    }
  }

  private async build(id: WorkspaceId, enterpriseId?: string): Promise<WorkspaceRuntime | undefined> {
    const { shared } = this.opts;
    const found = await this.opts.source.connected(id, enterpriseId);
    if (!found) return undefined;
    const { admin, slack, apiKey } = found;
    const settings = valuesOf(await admin.settings());
    const logger = shared.logger.child({ workspace: id });
    // The embedded sandbox names its organization's channels; its first is the default.
    const sandboxChannels = (await this.opts.channelsOf?.(apiKey).catch(() => undefined)) ?? [];
    const rt = buildWorkspace(
      { ...shared, logger },
      {
        id,
        baseUrl: this.opts.baseUrl,
        apiKey,
        ...(slack ? { slack, slackParts: await slackPartsOf(slack, logger) } : {}),
        settings,
        admin,
        defaultChannelId: sandboxChannels[0]?.id,
        ...(found.resolveGroupMembers ? { resolveGroupMembers: found.resolveGroupMembers } : {}),
        ...(found.onAudit ? { onAudit: found.onAudit } : {}),
      },
    );
    if (sandboxChannels.length)
      await rt.stores.channels.seed(new Map(sandboxChannels.map((c) => [c.id, c.name])), "sandbox");
    this.hooks.set(rt, (await this.opts.slackHooks?.(rt)) ?? {});
    if (this.live.has(id) && slack) this.clients.set(id, slack.client);
    return rt;
  }

  /** Builds the runtimes of these workspaces now (at start: those with background work to resume). */
  async warm(ids: WorkspaceId[]): Promise<void> {
    for (const id of ids) await this.runtime(id).catch(() => undefined);
  }
}
