// Forms, uploads and buttons that build their request themselves reach the
// API through the core: it checks the person's scope and audits each write.
import type { MessagingApi } from "../api/types.ts";
import type { Actor } from "../commands/types.ts";
import type { SlackDeps } from "./deps.ts";

/** The API as `actor` may use it: the core checks the scope and audits every write as `command`. */
export function withApi<T>(
  deps: SlackDeps,
  actor: Actor,
  scope: "read" | "write" | "broadcast",
  command: string,
  work: (api: MessagingApi) => Promise<T>,
): Promise<T> {
  const perform = deps.core.perform;
  if (!perform) throw new Error("the command core has no perform(): forms need it");
  return perform.call(deps.core, actor, { scope, command }, work) as Promise<T>;
}
