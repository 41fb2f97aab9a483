/** @deprecated Import from ./context.ts: the services and the hooks live there now. */
export type { RegisterFn, SlackDeps, SlackHooks } from "./context.ts";
