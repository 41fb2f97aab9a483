// Where a workspace's installation comes from: the one difference between the
// two modes (issue 38 §1). Many-workspace mode's come from the store ("Add to
// Slack": a bot token through the TokenSource, an API key from `/sb connect`);
// single mode has one, the environment's: workspace `env` (the rows a
// single-mode deployment holds are keyed so), its key MESSAGING_API_KEY (or
// the embedded sandbox's), its bot SLACK_BOT_TOKEN's (none in the shell). The
// registry (registry.ts) builds every workspace's runtime from either alike.
import type { ResolveGroupMembers } from "../commands/permissions.ts";
import type { CommandCore } from "../commands/types.ts";
import type { WorkspaceAdmin } from "../commands/workspace-admin.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../domain/workspace.ts";
import type { RequestTeam } from "../slack/context.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { ChannelPostQueue } from "../slack/io/post-queue.ts";
import type { AuditEntry } from "../store/audit.ts";
import {
  type InstallationKey,
  type Installations,
  installationKey,
  type StoredInstallation,
} from "../store/installations.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";

/** A connected workspace, as its runtime is built from it. */
export interface FoundWorkspace {
  apiKey: string;
  /** Its connect, disconnect and settings (admin.ts): its effective settings come from it. */
  admin: WorkspaceAdmin;
  /** In Slack: its bot client and the shared post queue (none: the shell). */
  slack?: SlackBridge;
  resolveGroupMembers?: ResolveGroupMembers;
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
}

export interface InstallationSource {
  /** A connected workspace (installed, with its API key); undefined: not installed, or not connected. */
  connected(id: WorkspaceId, enterpriseId?: string): Promise<FoundWorkspace | undefined>;
  /** The core of a workspace installed and not connected (help, connect, settings); undefined: not installed. */
  notConnected(
    id: WorkspaceId,
    stores: WorkspaceStores,
    enterpriseId?: string,
  ): Promise<CommandCore | undefined>;
  /** Every connected workspace (background work runs for each). */
  connectedIds(): Promise<WorkspaceId[]>;
  /** A request's workspace from its team (default: the team's id; single mode: `env`, whatever its team). */
  workspaceOf?(team: RequestTeam): WorkspaceId | undefined;
  /**
   * A change can only be of the workspace's settings (single mode: the key and the bot are the environment's):
   * applied to the runtime kept, whose long-lived work goes on. Otherwise a change builds the runtime again.
   */
  readonly settingsOnly?: boolean;
}

/** Single mode: the environment's one installation, `env`. */
export function envInstallation(env: FoundWorkspace): InstallationSource {
  return {
    connected: async (id) => (id === ENV_WORKSPACE ? env : undefined),
    notConnected: async () => undefined,
    connectedIds: async () => [ENV_WORKSPACE],
    // The bot token's own workspace (Bolt's authorize refuses any other): every request is `env`'s.
    workspaceOf: () => ENV_WORKSPACE,
    settingsOnly: true,
  };
}

/** Many-workspace mode: the installations and connections the store keeps. */
export function storedInstallations(opts: {
  installations: Installations;
  /** The one getter of bot tokens (refreshed under the store's lock). */
  tokens: { botToken(key: InstallationKey): Promise<string> };
  posts: ChannelPostQueue;
  slackApiUrl?: string;
  adminOf: (id: WorkspaceId, installation: StoredInstallation) => WorkspaceAdmin;
  notConnected: (
    id: WorkspaceId,
    installation: StoredInstallation | undefined,
    stores: WorkspaceStores,
  ) => CommandCore;
  logger: import("../platform/log.ts").Logger;
}): InstallationSource & { botToken(id: WorkspaceId): Promise<string> } {
  const { installations } = opts;
  return {
    async connected(id, enterpriseId) {
      // The connection first: it knows the workspace's enterprise, so background work (which has only
      // the team id) finds an org-wide installation too.
      const connection = await installations.connection(id);
      if (!connection) return undefined;
      const inst = await installations.forTeam(id, enterpriseId ?? connection.enterpriseId);
      if (!inst) return undefined;
      const key = installationKey(inst);
      const logger = opts.logger.child({ workspace: id });
      const { workspaceClient } = await import("../slack/tenancy/workspace-client.ts");
      const { workspaceBridge } = await import("../slack/io/bridge.ts");
      const client = workspaceClient(() => opts.tokens.botToken(key), {
        ...(opts.slackApiUrl ? { slackApiUrl: opts.slackApiUrl } : {}),
        logger,
        teamId: id,
      });
      return {
        apiKey: connection.apiKey,
        admin: opts.adminOf(id, inst),
        slack: workspaceBridge({ client, posts: opts.posts, logger }),
      };
    },
    async notConnected(id, stores, enterpriseId) {
      // The connection knows an org-wide installation's enterprise when the request does not say it.
      const enterprise = enterpriseId ?? (await installations.connection(id))?.enterpriseId;
      const inst = await installations.forTeam(id, enterprise);
      return inst && opts.notConnected(id, inst, stores);
    },
    connectedIds: () => installations.connectedTeams(),
    /**
     * A connected workspace's bot token, through the TokenSource, without building its runtime (the
     * connection knows its enterprise: an org-wide installation is found from the team id alone).
     */
    async botToken(id) {
      const enterpriseId = (await installations.connection(id))?.enterpriseId;
      const inst = await installations.forTeam(id, enterpriseId);
      if (!inst) throw new Error("this workspace is not installed");
      return opts.tokens.botToken(installationKey(inst));
    },
  };
}
