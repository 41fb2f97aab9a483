import type { SlackBolt } from "../../context.ts";
import { onEvent } from "../on.ts";
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
  onEvent(app, "app_home_opened", EVENTS.app_home_opened);
  onEvent(app, "file_shared", EVENTS.file_shared);
  onEvent(app, "message", EVENTS.message);
  onEvent(app, "app_uninstalled", EVENTS.app_uninstalled);
  onEvent(app, "tokens_revoked", EVENTS.tokens_revoked);
}
