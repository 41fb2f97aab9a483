// The buttons of an inbox card (src/slack/features/inbox/render.ts): Reply and Send
// template open the send form prefilled with this chat user (as a text, or a
// template); the waiting list's "Open thread" is a link, acknowledged only.
import type { BlockAction, ButtonAction, StaticSelectAction, UsersSelectAction } from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { chatUserChannelId } from "../../../api/inbox.ts";
import { channelFormData, recipientLabel } from "../../../commands/lookups.ts";
import { errorRef } from "../../../platform/errors.ts";
import { personOf } from "../../context.ts";
import { deliver } from "../../deliver.ts";
import { formView } from "../../forms/index.ts";
import { modal, sectionText } from "../../forms/kit.ts";
import { savedReplyView } from "../../forms/saved-reply.ts";
import { snoozeModal } from "../../forms/snooze.ts";
import { keepFormChannel } from "../../io/event-store.ts";
import { slackCode } from "../../io/slack-errors.ts";
import { type Click, tellOf } from "./click.ts";

export function inboxSendForm(type: "text" | "template") {
  return async ({ ack, action, body, client, ctx }: Click<ButtonAction>) => {
    await ack();
    const actor = personOf(ctx);
    const chatUserId = Number(action.value);
    if (!Number.isSafeInteger(chatUserId) || chatUserId <= 0) return;
    const { data, label } = await ctx.core.perform(
      actor,
      { access: "read", command: "send" },
      async (api) => {
        const user = await api.getChatUser(chatUserId).catch(() => undefined);
        // The conversation's own channel first (the one the customer writes on), else the workspace's default.
        const channel = (user && chatUserChannelId(user)) ?? ctx.core.defaultChannelId;
        return {
          data: await channelFormData(api, channel, () => ctx.core.channelNames()),
          // The person by name in the form, as the card shows them (a nicety: the number otherwise).
          label: user ? recipientLabel("user", chatUserId, user) : undefined,
        };
      },
    );
    const recipient = { value: `user:${chatUserId}`, label: label ?? `Chat user #${chatUserId}` };
    const opened = await client.views.open({
      trigger_id: (body as BlockAction).trigger_id,
      view: formView({ kind: "send", data: { ...data, prefill: { recipient, type } } }, actor),
    });
    // The channel it was opened from, kept with the view: the outcome is posted there (forms/index.ts).
    if (opened.view?.id && actor.channelId)
      await keepFormChannel(ctx.events, opened.view.id, actor.channelId);
  };
}

/**
 * "Saved reply…" on an inbox card (issue 29 §1): a small modal at once (the
 * trigger lasts 3 s; the customer's record takes a read or two), replaced by
 * the saved-reply form for this conversation.
 */
export async function inboxSavedReply({ ack, action, body, client, ctx }: Click<ButtonAction>) {
  await ack();
  const actor = personOf(ctx);
  const channel = body.container?.channel_id ?? body.channel?.id;
  const chatUserId = Number(action.value);
  if (!channel || !Number.isSafeInteger(chatUserId) || chatUserId <= 0) return;
  const opened = await client.views.open({
    trigger_id: body.trigger_id,
    view: modal({
      callbackId: "sb_wait",
      title: "Saved reply",
      close: "Close",
      blocks: [sectionText("Opening the form…")],
    }),
  });
  const viewId = opened.view?.id;
  if (!viewId) return;
  let view: ModalView;
  try {
    view = await savedReplyView(ctx, { ...actor, channelId: channel }, { ch: channel, u: chatUserId });
  } catch (err) {
    const ref = errorRef();
    ctx.logger.error({ err, ref }, "could not open the saved reply form");
    view = modal({
      callbackId: "sb_wait",
      title: "Saved reply",
      close: "Close",
      blocks: [
        sectionText(`:warning: The form could not be opened (ref ${ref}). Nothing was sent; try again.`),
      ],
    });
  }
  // The channel it was opened from, kept with the view: the submission's outcome may go there (forms/index.ts).
  await keepFormChannel(ctx.events, viewId, channel);
  await client.views.update({ view_id: viewId, hash: opened.view?.hash, view }).catch((err) => {
    if (slackCode(err) !== "not_found") throw err;
  });
}

/** "Open thread" is a link button: Slack still sends the click, which wants an ack. */
export async function inboxOpenThread({ ack }: { ack: () => Promise<void> }): Promise<void> {
  await ack();
}

/**
 * The card's desk (issue 20): Assign to me, the user select, Unassign, Resolve
 * and Reopen run the `inbox assign|resolve|reopen` commands as the person who
 * clicked (writers only, audited, the card redrawn), and the answer is theirs
 * alone: who has it already, when someone else was first.
 */
export function inboxDesk(kind: "me" | "pick" | "unassign" | "resolve" | "reopen" | "snooze" | "wake") {
  return async ({ ack, action, body, client, respond, ctx }: Click) => {
    await ack();
    const actor = personOf(ctx);
    const channel = body.container?.channel_id ?? body.channel?.id;
    const fromBlock = /^sb_inbox_desk:(\d+)$/.exec(action.block_id ?? "")?.[1];
    const chatUserId = Number("value" in action && action.value ? action.value : fromBlock);
    if (!channel || !Number.isSafeInteger(chatUserId) || chatUserId <= 0) return;
    const person =
      kind === "pick" ? (action as UsersSelectAction).selected_user : kind === "unassign" ? "nobody" : "me";
    if (!person) return;
    // Snooze…: a choice of the menu (issue 29 §3); "a time you choose" opens a small modal first.
    const until = kind === "snooze" ? (action as StaticSelectAction).selected_option?.value : undefined;
    if (kind === "snooze" && !until) return;
    if (until === "pick") {
      const t = ctx.stores ? await ctx.stores.inbox.thread(channel, chatUserId) : undefined;
      const picked = await client.views.open({
        trigger_id: body.trigger_id,
        view: snoozeModal(
          { ch: channel, u: chatUserId, name: t?.card?.name ?? `chat user #${chatUserId}` },
          new Date(),
        ),
      });
      if (picked.view?.id) await keepFormChannel(ctx.events, picked.view.id, channel);
      return;
    }
    const line =
      kind === "resolve" || kind === "reopen" || kind === "wake"
        ? `inbox ${kind} ${channel} ${chatUserId}`
        : kind === "snooze"
          ? `inbox snooze ${channel} ${chatUserId} until=${until}`
          : `inbox assign ${channel} ${chatUserId} ${person === "me" || person === "nobody" ? person : `<@${person}>`}`;
    const reply = await ctx.core.run(line, actor);
    await deliver(
      reply,
      {
        client,
        respond: tellOf(body, respond),
        actor,
        triggerId: body.trigger_id,
        line,
        replaceOriginal: false,
      },
      ctx,
    );
  };
}
