// Schema `workspaces`: the Slack installations of a many-workspace Switchboard
// (docs/workspaces.md), each workspace's API key and the workspaces that left.
//
// - An installation is keyed by enterprise id, team id and whether it is
//   org-wide: an org-wide install (Enterprise Grid) is the enterprise's row,
//   team id '' (keying by enterprise alone would let one workspace's install
//   answer for another's, bolt-js #1510); a workspace's own install is found by
//   its team id alone, team ids being unique across Slack.
// - Bot, refresh and user tokens and API keys are kept sealed (src/platform/secrets.ts),
//   each bound to its column and row; a value the previous key sealed is
//   sealed again with the current one when read (or by resealAll()).
// - installed_at: an `app_uninstalled` or `tokens_revoked` older than the
//   current installation is a late one about an earlier install and is ignored
//   (bolt-js #1203, #673, #1558).
// - withBotTokens() holds the row's lock (SELECT … FOR UPDATE) while a refresh
//   token is spent, so two processes never spend the same one.
//
// Installations is the facade of src/store/installations/, one file per
// concern: each method is documented there (installs.ts, departures.ts,
// tokens.ts, connections.ts; rows.ts: keys and sealing; types.ts: the records).
import type { Keyring } from "../platform/secrets.ts";
import type { Db } from "./db.ts";
import { Connections } from "./installations/connections.ts";
import { Departures } from "./installations/departures.ts";
import { Installs } from "./installations/installs.ts";
import { Tokens } from "./installations/tokens.ts";
import type { BotTokens, InstallationKey } from "./installations/types.ts";

export { WORKSPACES_MIGRATIONS } from "./installations/migrations.ts";
export { installationKey } from "./installations/rows.ts";
export type {
  BotTokens,
  Connection,
  Departure,
  Installation,
  InstallationKey,
  RemovalOutcome,
  StoredInstallation,
} from "./installations/types.ts";

export class Installations {
  private readonly db: Db;
  readonly #installs: Installs;
  readonly #departures: Departures;
  readonly #tokens: Tokens;
  readonly #connections: Connections;

  private constructor(db: Db, keyring: Keyring, now: () => Date) {
    this.db = db;
    this.#installs = new Installs(db, keyring, now);
    this.#departures = new Departures(db, keyring, now);
    this.#tokens = new Tokens(db, keyring, now);
    this.#connections = new Connections(db, keyring, now);
  }

  /** The store over a database the registry migrated (src/store/migrations.ts). */
  static async open(db: Db, keyring: Keyring, opts: { now?: () => Date } = {}): Promise<Installations> {
    return new Installations(db, keyring, opts.now ?? (() => new Date()));
  }

  // installs.ts

  save(...a: Parameters<Installs["save"]>) {
    return this.#installs.save(...a);
  }

  find(...a: Parameters<Installs["find"]>) {
    return this.#installs.find(...a);
  }

  forTeam(...a: Parameters<Installs["forTeam"]>) {
    return this.#installs.forTeam(...a);
  }

  remove(...a: Parameters<Installs["remove"]>) {
    return this.#installs.remove(...a);
  }

  // departures.ts

  uninstall(...a: Parameters<Departures["uninstall"]>) {
    return this.#departures.uninstall(...a);
  }

  departedBefore(...a: Parameters<Departures["departedBefore"]>) {
    return this.#departures.departedBefore(...a);
  }

  forgetDeparture(...a: Parameters<Departures["forgetDeparture"]>) {
    return this.#departures.forgetDeparture(...a);
  }

  // tokens.ts

  revokeTokens(...a: Parameters<Tokens["revokeTokens"]>) {
    return this.#tokens.revokeTokens(...a);
  }

  withBotTokens<T>(
    key: InstallationKey,
    fn: (bot: BotTokens | undefined) => Promise<{ replace?: BotTokens; result: T }>,
  ): Promise<T> {
    return this.#tokens.withBotTokens(key, fn);
  }

  // connections.ts

  connect(...a: Parameters<Connections["connect"]>) {
    return this.#connections.connect(...a);
  }

  connection(...a: Parameters<Connections["connection"]>) {
    return this.#connections.connection(...a);
  }

  connectedTeams(...a: Parameters<Connections["connectedTeams"]>) {
    return this.#connections.connectedTeams(...a);
  }

  connectedTeamsOf(...a: Parameters<Connections["connectedTeamsOf"]>) {
    return this.#connections.connectedTeamsOf(...a);
  }

  disconnect(...a: Parameters<Connections["disconnect"]>) {
    return this.#connections.disconnect(...a);
  }

  /** Readiness: installations, connected workspaces, and installations without a usable bot token. */
  async counts(): Promise<{ installed: number; connected: number; failing: number }> {
    const { rows } = await this.db.query<{ installed: number; connected: number; failing: number }>(
      `select (select count(*)::int from workspaces.installations) as installed,
              (select count(*)::int from workspaces.connections) as connected,
              (select count(*)::int from workspaces.installations
                where bot_token is null
                   or (bot_token_expires_at is not null and bot_token_expires_at < now())) as failing`,
    );
    return rows[0] ?? { installed: 0, connected: 0, failing: 0 };
  }

  /** Seals again, with the current key, every value the previous key sealed; returns how many rows changed. */
  async resealAll(): Promise<number> {
    const installs = await this.#installs.resealAll();
    return installs + (await this.#connections.resealAll());
  }
}
