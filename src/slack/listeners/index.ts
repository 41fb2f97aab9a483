// Every listener, and before them the middleware every request goes through
// (context, dedupe, guard: middleware.ts).
import type { SlackBolt, SlackDeps } from "../context.ts";
import * as actions from "./actions/index.ts";
import * as commands from "./commands/index.ts";
import { dedupeEvents } from "./events/dedupe.ts";
import * as events from "./events/index.ts";
import * as functions from "./functions/index.ts";
import { guard, provideContext } from "./middleware.ts";
import * as shortcuts from "./shortcuts/index.ts";
import * as views from "./views/index.ts";

export function registerListeners(app: SlackBolt, deps: SlackDeps): void {
  app.use(provideContext(deps));
  app.use(dedupeEvents);
  app.use(guard());
  events.register(app);
  commands.register(app);
  actions.register(app, deps);
  views.register(app, deps);
  functions.register(app);
  shortcuts.register(app, deps);
}
