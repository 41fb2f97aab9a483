// Forms, uploads and buttons that build their request themselves reach the
// API through the core: it checks the person's scope and audits each write.
import type { MessagingApi } from "../api/types.ts";
import type { Actor } from "../commands/types.ts";
import type { WorkspaceWork } from "./context.ts";

/** The API as `actor` may use it: the core checks the scope and audits every write as `command`. */
export function withApi<T>(
  deps: Pick<WorkspaceWork, "core">,
  actor: Actor,
  scope: "read" | "write" | "broadcast",
  command: string,
  work: (api: MessagingApi) => Promise<T>,
): Promise<T> {
  return deps.core.perform(actor, { scope, command }, work);
}
