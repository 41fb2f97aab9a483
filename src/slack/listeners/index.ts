import type { App } from "@slack/bolt";
import type { SlackDeps } from "../deps.ts";
import * as actions from "./actions/index.ts";
import * as commands from "./commands/index.ts";
import * as events from "./events/index.ts";
import * as functions from "./functions/index.ts";
import * as shortcuts from "./shortcuts/index.ts";
import * as views from "./views/index.ts";

export function registerListeners(app: App, deps: SlackDeps): void {
  events.register(app, deps);
  commands.register(app, deps);
  actions.register(app, deps);
  views.register(app, deps);
  functions.register(app, deps);
  shortcuts.register(app, deps);
}
