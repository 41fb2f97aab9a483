// The controls of an upload's preview: group and update-existing choices
// (stored with the pending import), Change mapping (a form), Import (once,
// however often it is clicked), Discard, and Try again on an import whose
// outcome is unknown.
import { contactFields } from "../../../commands/lookups.ts";
import { UserError } from "../../../commands/registry.ts";
import type { ColumnMapping } from "../../../imports/index.ts";
import { personOf } from "../../context.ts";
import { discardImport, pendingImports, runImport } from "../../features/uploads/flow.ts";
import { IMPORT_ACTIONS, parseGroupChoice } from "../../features/uploads/message.ts";
import { mappingModal } from "../../forms/mapping.ts";
import { showKept } from "../../outcomes.ts";
import { withApi } from "../../perform.ts";
import type { Click } from "./click.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const IMPORT_CONTROL_ACTIONS = new RegExp(`^(${Object.values(IMPORT_ACTIONS).join("|")})$`);

export async function importControl({ ack, body, action, client, respond, ctx }: Click) {
  await ack();
  const actor = personOf(ctx);
  const a = action as {
    action_id: string;
    value?: string;
    block_id?: string;
    selected_option?: { value: string };
  };
  const id = a.value ?? a.block_id?.replace(/^imp:/, "") ?? "";
  const tell = async (text: string) => {
    await respond({ response_type: "ephemeral", replace_original: false, text });
  };
  // Every import's id is a UUID: anything else did not come from a message of Switchboard's.
  if (!UUID.test(id))
    return tell("This button does not belong to an import Switchboard knows of: nothing was done.");
  const imports = pendingImports(ctx);
  if (!imports) return;
  // The buttons live on the preview message: record where it is, in case
  // this click beat the preview's own write of its ts (seen on PostgreSQL).
  const channel = body.container?.channel_id ?? body.channel?.id;
  const messageTs = body.container?.message_ts ?? body.message?.ts;
  if (channel && messageTs && id) await imports.place(id, { channel, messageTs });
  try {
    if (a.action_id === IMPORT_ACTIONS.group || a.action_id === IMPORT_ACTIONS.update) {
      const p = await imports.get(id);
      if (!p) return;
      const updated = await withApi(ctx, actor, "write", "import choice", async () =>
        imports.choose(
          id,
          a.action_id === IMPORT_ACTIONS.group
            ? { group: parseGroupChoice(a.selected_option?.value, p.fileName) }
            : { updateExisting: a.selected_option?.value === "yes" },
        ),
      );
      if (!updated) await tell("This import is no longer pending: the choice was not changed.");
      return;
    }
    if (a.action_id === IMPORT_ACTIONS.mapping) {
      const p = await imports.get(id);
      if (p?.state !== "pending") return tell("This import is no longer pending.");
      const fields = await withApi(ctx, actor, "write", "import mapping", (api) => contactFields(api));
      const defs = fields.map((f) => ({ key: f.key as string, label: f.label, type: f.type }));
      await client.views.open({
        trigger_id: body.trigger_id,
        view: mappingModal(p.headers, p.mapping as ColumnMapping, defs, { id }),
      });
      return;
    }
    const origin = {
      channel: body.container?.channel_id ?? body.channel?.id,
      messageTs: body.container?.message_ts ?? body.message?.ts,
    };
    const answer =
      a.action_id === IMPORT_ACTIONS.run
        ? await runImport(ctx, client, id, actor, origin)
        : a.action_id === IMPORT_ACTIONS.retry
          ? await runImport(ctx, client, id, actor, origin, "unknown")
          : await discardImport(ctx, client, id, actor);
    if (answer) await tell(answer);
    // An outcome Slack would not take in the thread (kept for the clicker): said here if this still answers.
    if (a.action_id === IMPORT_ACTIONS.run || a.action_id === IMPORT_ACTIONS.retry)
      await showKept(ctx, actor.userId, respond, client);
  } catch (err) {
    if (err instanceof UserError) return tell(err.message);
    throw err;
  }
}
