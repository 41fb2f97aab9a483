// Forms, uploads and buttons that build their request themselves reach the
// API through the core: it checks the person's access and audits each write.
import type { MessagingApi } from "../api/types.ts";
import type { Access, Actor } from "../commands/types.ts";
import type { WorkspaceWork } from "./context.ts";

/** The API as `actor` may use it: the core checks the access and audits every write as `command`. */
export function withApi<T>(
  deps: Pick<WorkspaceWork, "core">,
  actor: Actor,
  access: Access,
  command: string,
  work: (api: MessagingApi) => Promise<T>,
): Promise<T> {
  return deps.core.perform(actor, { access, command }, work);
}
