// A shortcut opens the same form as its command (`/sb send`, `/sb campaign
// new`, `/sb import`). Its trigger_id lasts 3 s and the form's data may take
// longer to read, so a small modal opens at once and the form replaces it
// (views.update) when the core answers; a refusal (not a writer) shows there.
import type {
  AllMiddlewareArgs,
  GlobalShortcut,
  MessageShortcut,
  SlackShortcutMiddlewareArgs,
} from "@slack/bolt";
import type { ModalView } from "@slack/types";
import type { Actor } from "../../../commands/types.ts";
import { guarded, slackError } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { modal, sectionText } from "../../modals/kit.ts";
import { modalFor } from "../../modals/open.ts";

export const SHORTCUTS = {
  sendToCustomer: "sb_send_to_customer",
  send: "sb_send",
  newCampaign: "sb_new_campaign",
  import: "sb_import",
} as const;

type Shortcut = GlobalShortcut | MessageShortcut;

export function shortcutActor(shortcut: Shortcut): Actor {
  return {
    userId: shortcut.user.id,
    userName: shortcut.user.username,
    teamId: shortcut.team?.id ?? shortcut.user.team_id,
    // A message shortcut's results go to the message's channel; a global one's to the app's DM.
    channelId: shortcut.type === "message_action" ? shortcut.channel.id : undefined,
    via: "slack",
  };
}

const waiting = (title: string): ModalView =>
  modal({ callbackId: "sb_wait", title, close: "Close", blocks: [sectionText("Opening the form…")] });

/** The form of `line` for whoever used the shortcut; `text` fills the send form's message. */
export async function openForm(
  deps: SlackDeps,
  args: { shortcut: Shortcut; client: AllMiddlewareArgs["client"] },
  line: string,
  title: string,
  prefill?: { text?: string },
): Promise<void> {
  const { shortcut, client } = args;
  const actor = shortcutActor(shortcut);
  const opened = await client.views.open({ trigger_id: shortcut.trigger_id, view: waiting(title) });
  const viewId = opened.view?.id;
  if (!viewId) throw new Error("views.open answered without the view's id");
  const reply = await deps.core.run(line, actor);
  const view = reply.form
    ? modalFor(reply.form, actor, prefill)
    : modal({
        callbackId: "sb_wait",
        title,
        close: "Close",
        blocks: reply.blocks.length ? reply.blocks : [sectionText(reply.text)],
      });
  try {
    await client.views.update({ view_id: viewId, hash: opened.view?.hash, view });
  } catch (err) {
    // Closed while the form was being prepared: nothing to show, nothing went wrong.
    if (slackError(err) !== "not_found") throw err;
    deps.logger.info({ line }, "shortcut's modal closed before the form was ready");
  }
}

export function globalShortcut(deps: SlackDeps, line: string, title: string) {
  return async ({ ack, shortcut, client }: SlackShortcutMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    await guarded(deps, `shortcut ${line}`, undefined, () =>
      openForm(deps, { shortcut, client }, line, title),
    );
  };
}
