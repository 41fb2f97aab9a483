import type { SlackBolt } from "../../context.ts";
import { appHomeOpened } from "./app-home-opened.ts";
import { appUninstalled, tokensRevoked } from "./app-uninstalled.ts";
import { fileShared } from "./file-shared.ts";
import { inboxMessage } from "./inbox-message.ts";

/** Every event the app listens to, by type (the tenant probe enumerates them). */
export const EVENTS = {
  app_home_opened: appHomeOpened,
  // CSV and xlsx files become contact imports, unless the app was given its own handler.
  file_shared: fileShared,
  // Thread replies in inbox channels go to the customer (docs/inbox.md).
  message: inboxMessage,
  // Many workspaces: a workspace leaves (docs/workspaces.md, "Leaving").
  app_uninstalled: appUninstalled,
  tokens_revoked: tokensRevoked,
} as const;

export function register(app: SlackBolt): void {
  app.event("app_home_opened", EVENTS.app_home_opened);
  app.event("file_shared", EVENTS.file_shared);
  app.event("message", EVENTS.message);
  app.event("app_uninstalled", EVENTS.app_uninstalled);
  app.event("tokens_revoked", EVENTS.tokens_revoked);
}
