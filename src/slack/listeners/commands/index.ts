import type { App } from "@slack/bolt";
import type { SlackDeps } from "../../deps.ts";
import { sbCommand } from "./sb.ts";

export function register(app: App, deps: SlackDeps): void {
  // Any command name: a workspace may rename /sb in its manifest.
  app.command(/.*/, sbCommand(deps));
}
