import type { SlackBolt } from "../../context.ts";
import { appHomeOpened } from "./app-home-opened.ts";
import { appUninstalled, tokensRevoked } from "./app-uninstalled.ts";
import { fileShared } from "./file-shared.ts";
import { inboxMessage } from "./inbox-message.ts";

export function register(app: SlackBolt): void {
  app.event("app_home_opened", appHomeOpened);
  // CSV and xlsx files become contact imports, unless the app was given its own handler.
  app.event("file_shared", fileShared);
  // Thread replies in inbox channels go to the customer (docs/inbox.md).
  app.event("message", inboxMessage);
  // Many workspaces: a workspace leaves (docs/workspaces.md, "Leaving").
  app.event("app_uninstalled", appUninstalled);
  app.event("tokens_revoked", tokensRevoked);
}
