// Every listener, and before them the middleware every request goes through
// (context, dedupe, guard: middleware.ts).
import type { SlackBolt, SlackDeps } from "../context.ts";
import { registerForms } from "../forms/index.ts";
import * as actions from "./actions/index.ts";
import * as commands from "./commands/index.ts";
import { dedupeEvents } from "./events/dedupe.ts";
import * as events from "./events/index.ts";
import * as functions from "./functions/index.ts";
import { guard, provideContext } from "./middleware.ts";

export function registerListeners(app: SlackBolt, deps: SlackDeps): void {
  app.use(provideContext(deps));
  app.use(dedupeEvents);
  app.use(guard());
  events.register(app);
  commands.register(app);
  actions.register(app, deps);
  // Forms: their submissions, choices, options and the shortcuts that open them.
  registerForms(app, deps);
  functions.register(app);
}
