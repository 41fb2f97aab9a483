// An installation's tokens: revoked (`tokens_revoked`), and the bot token
// refreshed under the row's lock, so two processes never spend the same
// refresh token.
import { contextOf, InstallationsTable, isLate, rowKey } from "./rows.ts";
import type { BotTokens, InstallationKey, RemovalOutcome } from "./types.ts";

export class Tokens extends InstallationsTable {
  /**
   * `tokens_revoked`: forgets the bot token when its bot user is named, the
   * installer's user token when the installer is; the installation stays. A
   * late event (older than the installation) removes nothing.
   */
  async revokeTokens(
    key: InstallationKey,
    revoked: { botUserIds?: readonly string[]; userIds?: readonly string[] },
    eventTime: Date,
  ): Promise<RemovalOutcome> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, key);
      if (!row) return "absent";
      if (isLate(eventTime, row.installed_at)) return "stale";
      const bot = !!row.bot_user_id && (revoked.botUserIds ?? []).includes(row.bot_user_id);
      const user = (revoked.userIds ?? []).includes(row.installer_user_id);
      const sets = [
        ...(bot ? ["bot_token = null, bot_refresh_token = null, bot_token_expires_at = null"] : []),
        ...(user ? ["user_token = null, user_refresh_token = null, user_token_expires_at = null"] : []),
      ];
      if (!sets.length) return "absent";
      const k = rowKey(key);
      await tx.query(
        `update workspaces.installations set ${sets.join(", ")}, updated_at = now() where ${k.where}`,
        k.params,
      );
      return "removed";
    });
  }

  /**
   * Runs `fn` with the installation's bot tokens while holding its row lock
   * (SELECT … FOR UPDATE: a second process waits, then sees what the first
   * wrote). When `fn` returns new tokens they are sealed and kept before the
   * lock goes. `fn` must not use the store: the lock's transaction is open.
   */
  async withBotTokens<T>(
    key: InstallationKey,
    fn: (bot: BotTokens | undefined) => Promise<{ replace?: BotTokens; result: T }>,
  ): Promise<T> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, key);
      const bot = row ? this.fromRow(row).bot : undefined;
      const { replace, result } = await fn(
        bot && { token: bot.token, refreshToken: bot.refreshToken, expiresAt: bot.expiresAt },
      );
      if (replace && row) {
        const k = rowKey(key);
        const n = k.params.length;
        await tx.query(
          `update workspaces.installations
             set bot_token = $${n + 1}, bot_refresh_token = $${n + 2}, bot_token_expires_at = $${n + 3}, updated_at = now()
           where ${k.where}`,
          [
            ...k.params,
            this.keyring.seal(replace.token, contextOf("bot_token", row)),
            replace.refreshToken === undefined
              ? null
              : this.keyring.seal(replace.refreshToken, contextOf("bot_refresh_token", row)),
            replace.expiresAt ?? null,
          ],
        );
      }
      return result;
    });
  }
}
