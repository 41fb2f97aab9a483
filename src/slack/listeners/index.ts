// Every listener, and before them the middleware every request goes through
// (context, set by the app first; dedupe, guard: middleware.ts).
import type { SlackBolt } from "../context.ts";
import { registerForms } from "../forms/index.ts";
import * as actions from "./actions/index.ts";
import * as commands from "./commands/index.ts";
import { dedupeEvents } from "./events/dedupe.ts";
import * as events from "./events/index.ts";
import * as functions from "./functions/index.ts";
import { guard } from "./middleware.ts";
import { Routes } from "./routes.ts";

/**
 * Every listener, with the app alone: each reads the services and the
 * request's workspace from `context`, which the context middleware
 * (middleware.ts, `provideContext`, used first by the app) fills per request.
 * Returns the routes of buttons and forms (tests count them).
 */
export function registerListeners(app: SlackBolt): Routes {
  app.use(dedupeEvents);
  app.use(guard());
  events.register(app);
  commands.register(app);
  // Buttons and forms (their submissions, choices, options and the shortcuts that open them) are matched by
  // Switchboard's routes, one Bolt listener per kind: Bolt runs every listener it has for every request (routes.ts).
  const routes = new Routes();
  actions.register(routes);
  registerForms(routes);
  routes.mount(app);
  functions.register(app);
  return routes;
}
