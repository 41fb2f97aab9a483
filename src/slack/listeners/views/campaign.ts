// The campaign form submitted: checked before any request, then (a new tag
// first, when asked) the draft campaign is created and posted with buttons to
// send it (through the core's confirmation) or open it.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { Tag } from "../../../api/types.ts";
import { actions, esc } from "../../../blocks/blocks.ts";
import { loadCampaignData } from "../../../commands/lookups.ts";
import { ACTION } from "../../../commands/types.ts";
import { guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import {
  type CampaignMeta,
  campaignBlockFor,
  campaignModal,
  planCampaign,
  tagOptions,
} from "../../modals/campaign.ts";
import { errorsFor } from "../../modals/errors.ts";
import { readMetadata, sectionText } from "../../modals/kit.ts";
import { withApi } from "../../perform.ts";
import { answerSubmission, postOutcome, refusalErrors, viewActor } from "./forms.ts";

export function campaignSubmitted(deps: SlackDeps) {
  return async ({
    ack,
    body,
    view,
    client,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const meta = readMetadata<CampaignMeta>(view.private_metadata);
    const state = view.state.values;
    const actor = viewActor(body, meta.ch);
    const planned = planCampaign(state, meta);
    if ("errors" in planned) {
      await ack({ response_action: "errors", errors: errorsFor(planned.errors, view) });
      return;
    }
    const { plan } = planned;
    const name = plan.body.name;
    await guarded(deps, "campaign form", undefined, () =>
      answerSubmission(deps, client, view, ack, async () => {
        let createdTag: Tag | undefined;
        try {
          const c = await withApi(deps, actor, "write", `campaign new (form) "${name}"`, async (api) => {
            if (!plan.newTag) return api.createCampaign(plan.body);
            createdTag = await api.createTag(plan.newTag);
            return api.createCampaign({ ...plan.body, conversationTagId: createdTag.id });
          });
          return {
            after: async () => {
              const id = c.id ?? "?";
              const text = `Draft campaign #${id} “${esc(name)}” created`;
              const blocks = [
                sectionText(
                  `:memo: ${text}${createdTag ? `, with the new tag “${esc(plan.newTag?.name)}”` : ""}.`,
                ),
              ];
              if (c.id !== undefined)
                blocks.push(
                  actions([
                    { text: "Send…", actionId: ACTION.run, value: `campaign ${c.id} send`, style: "primary" },
                    { text: "Open", actionId: `${ACTION.run}:2`, value: `campaign ${c.id}` },
                  ]),
                );
              await postOutcome(deps, client, { channel: meta.ch, userId: actor.userId }, { text, blocks });
            },
          };
        } catch (err) {
          if (!createdTag)
            return {
              answer: {
                response_action: "errors",
                errors: refusalErrors(err, campaignBlockFor, "name", view),
              },
            };
          // The tag exists now: show the form again with it chosen, so a second try does not make it twice.
          const why = Object.values(refusalErrors(err, campaignBlockFor, "name", view)).join("; ");
          const data = await withApi(deps, actor, "read", "campaign new (form)", (api) =>
            loadCampaignData(api, deps.config.MESSAGING_CHANNEL_ID, deps.core.channelNames),
          );
          const chosen = tagOptions(data.tags).find((o) => o.value === String(createdTag?.id));
          const kept = { ...state, tag: { [`sb_tag`]: { type: "static_select", selected_option: chosen } } };
          return {
            answer: {
              response_action: "update",
              view: campaignModal(
                data,
                meta,
                kept,
                `The tag “${plan.newTag?.name}” was created (#${createdTag.id}) and is now chosen, but the campaign was refused: ${why}`,
              ),
            },
          };
        }
      }),
    );
  };
}
