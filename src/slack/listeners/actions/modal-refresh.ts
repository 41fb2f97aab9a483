// Choices inside an open form that change the form (views.update): a template
// chosen (its placeholders become inputs), the message type, "new tag", the
// template body and name as they are typed, buttons added or removed. What the
// user entered is kept: the view is rebuilt from its own state.
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { chosenTemplate, loadCampaignData } from "../../../commands/lookups.ts";
import type { Actor } from "../../../commands/types.ts";
import { slackError } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { CAMPAIGN_CALLBACK, type CampaignMeta, campaignModal } from "../../modals/campaign.ts";
import { cut, readMetadata, type StateValues, selectedOf } from "../../modals/kit.ts";
import { SEND_CALLBACK, type SendMeta, sendModal } from "../../modals/send.ts";
import {
  TEMPLATE_ACTIONS,
  TEMPLATE_CALLBACK,
  type TemplateMeta,
  templateModal,
} from "../../modals/template.ts";
import { withApi } from "../../perform.ts";
import { actionActor } from "../actor.ts";

export const REFRESH_ACTIONS = /^(sb_tpl|sb_tag|sb_type|sb_tname|sb_tbody|sb_add_button|sb_remove_button)$/;

async function templateMeta(deps: SlackDeps, actor: Actor, state: StateValues) {
  const id = Number(selectedOf(state, "template"));
  if (!Number.isInteger(id) || id <= 0) return undefined;
  const t = await withApi(deps, actor, "read", "form", (api) => chosenTemplate(api, id));
  // The body is only a preview here; cut so the metadata stays under Slack's 3000 characters.
  return { ...t, body: cut(t.body, 600), placeholders: t.placeholders.slice(0, 30) };
}

export function modalRefresh(deps: SlackDeps) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
    const view = body.view;
    if (!view) return;
    const actor = actionActor(body);
    const state = view.state.values as StateValues;
    const actionId = (action as { action_id: string }).action_id;
    try {
      let next: ModalView | undefined;
      if (view.callback_id === CAMPAIGN_CALLBACK) {
        const meta = readMetadata<CampaignMeta>(view.private_metadata);
        if (actionId === "sb_tpl") meta.tpl = await templateMeta(deps, actor, state);
        const data = await withApi(deps, actor, "read", "form", (api) =>
          loadCampaignData(api, deps.config.MESSAGING_CHANNEL_ID, deps.core.channelNames),
        );
        next = campaignModal(data, meta, state);
      } else if (view.callback_id === SEND_CALLBACK) {
        const meta = readMetadata<SendMeta>(view.private_metadata);
        if (actionId === "sb_tpl") meta.tpl = await templateMeta(deps, actor, state);
        if (selectedOf(state, "type") !== "template") meta.tpl = undefined;
        const channelNames = (await deps.core.channelNames?.()) ?? {};
        next = sendModal({ channels: meta.chs ?? [], defaultChannelId: meta.def, channelNames }, meta, state);
      } else if (view.callback_id === TEMPLATE_CALLBACK) {
        const meta = readMetadata<TemplateMeta>(view.private_metadata);
        if (actionId === TEMPLATE_ACTIONS.addButton || actionId === TEMPLATE_ACTIONS.removeButton) {
          const n = Number((action as { value?: string }).value);
          if (Number.isInteger(n) && n >= 0) meta.buttons = n;
        }
        const channelNames = (await deps.core.channelNames?.()) ?? {};
        next = templateModal(
          { channels: meta.chs ?? [], defaultChannelId: meta.def, channelNames },
          meta,
          state,
        );
      }
      if (!next) return;
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (err) {
      // A newer change already updated the form: this one is stale, not a failure.
      if (slackError(err) === "hash_conflict") return;
      deps.logger.error({ err, callback: view.callback_id, actionId }, "could not update the form");
    }
  };
}
