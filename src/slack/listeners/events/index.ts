import type { App } from "@slack/bolt";
import type { SlackDeps } from "../../deps.ts";
import { appHomeOpened } from "./app-home-opened.ts";
import { dedupeEvents } from "./dedupe.ts";
import { fileShared } from "./file-shared.ts";
import { inboxMessage } from "./inbox-message.ts";
import { uploadShared } from "./upload-shared.ts";

export function register(app: App, deps: SlackDeps): void {
  app.use(dedupeEvents(deps));
  app.event("app_home_opened", appHomeOpened(deps));
  // CSV and xlsx files become contact imports, unless the app was given its own handler.
  if (!deps.hooks.onFileShared && deps.db) deps.hooks.onFileShared = uploadShared(deps);
  app.event("file_shared", fileShared(deps));
  // Thread replies in inbox channels go to the customer (docs/inbox.md).
  app.event("message", inboxMessage(deps));
}
