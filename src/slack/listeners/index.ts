import type { App } from "@slack/bolt";
import type { SlackDeps } from "../deps.ts";
import { registerForms } from "../forms/index.ts";
import * as actions from "./actions/index.ts";
import * as commands from "./commands/index.ts";
import * as events from "./events/index.ts";
import * as functions from "./functions/index.ts";

export function registerListeners(app: App, deps: SlackDeps): void {
  events.register(app, deps);
  commands.register(app, deps);
  actions.register(app, deps);
  // Forms: their submissions, choices, options and the shortcuts that open them.
  registerForms(app, deps);
  functions.register(app, deps);
}
