// Options loaded as the user types in a form (block_suggestion): approved
// templates (of the channel chosen in the form), contacts and chat users.
import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from "@slack/bolt";
import type { PlainTextOption } from "@slack/types";
import type { SlackDeps } from "../../deps.ts";
import { type StateValues, selectedOf } from "../../modals/kit.ts";
import { recipientSuggestions, templateSuggestions } from "../../modals/lookups.ts";
import { withApi } from "../../perform.ts";
import { viewActor } from "../views/forms.ts";

export const OPTION_ACTIONS = /^(sb_tpl|sb_recipient|sb_contacts)$/;

export function modalOptions(deps: SlackDeps) {
  return async ({ ack, body }: SlackOptionsMiddlewareArgs<"block_suggestion"> & AllMiddlewareArgs) => {
    const actor = viewActor(body);
    const query = body.value ?? "";
    let options: PlainTextOption[] = [];
    try {
      options = await withApi(deps, actor, "read", "form", async (api) => {
        if (body.action_id === "sb_tpl") {
          const channel = Number(selectedOf(body.view?.state?.values as StateValues | undefined, "channel"));
          return templateSuggestions(
            api,
            query,
            Number.isInteger(channel) && channel > 0 ? channel : undefined,
          );
        }
        return recipientSuggestions(api, query, { users: body.action_id === "sb_recipient" });
      });
    } catch (err) {
      deps.logger.warn({ err: String(err), actionId: body.action_id }, "could not load form options");
    }
    await ack({ options });
  };
}
