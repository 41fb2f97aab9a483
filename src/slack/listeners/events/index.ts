import type { App } from "@slack/bolt";
import type { SlackDeps } from "../../deps.ts";
import { appHomeOpened } from "./app-home-opened.ts";
import { dedupeEvents } from "./dedupe.ts";
import { fileShared } from "./file-shared.ts";

export function register(app: App, deps: SlackDeps): void {
  app.use(dedupeEvents(deps));
  app.event("app_home_opened", appHomeOpened(deps));
  app.event("file_shared", fileShared(deps));
}
