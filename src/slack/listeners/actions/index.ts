import type { BlockAction, ButtonAction } from "@slack/bolt";
import { ACTION } from "../../../commands/types.ts";
import type { Listeners } from "../routes.ts";
import { confirmAction } from "./confirm.ts";
import { dismissAction } from "./dismiss.ts";
import { IMPORT_CONTROL_ACTIONS, importControl } from "./import-controls.ts";
import { inboxDesk, inboxOpenThread, inboxSavedReply, inboxSendForm } from "./inbox.ts";
import { keptSeenAction } from "./kept.ts";
import { runAction } from "./run.ts";

/**
 * Slack wants action ids unique within a message, so the core suffixes
 * repeats (`sb_run`, `sb_run:2`, …); a listener matches the id and its suffixes.
 */
export const actionIdPattern = (id: string) => new RegExp(`^${id}(:\\d+)?$`);

export function register(app: Listeners): void {
  app.action<BlockAction<ButtonAction>>({ action_id: actionIdPattern(ACTION.run) }, runAction);
  app.action<BlockAction<ButtonAction>>({ action_id: actionIdPattern(ACTION.confirm) }, confirmAction);
  app.action<BlockAction<ButtonAction>>({ action_id: actionIdPattern(ACTION.dismiss) }, dismissAction);
  // The forms' own choices and options: src/slack/forms/index.ts.
  app.action<BlockAction>({ type: "block_actions", action_id: IMPORT_CONTROL_ACTIONS }, importControl);
  // Inbox cards (docs/inbox.md).
  app.action<BlockAction<ButtonAction>>(
    { action_id: actionIdPattern(ACTION.inboxReply) },
    inboxSendForm("text"),
  );
  app.action<BlockAction<ButtonAction>>(
    { action_id: actionIdPattern(ACTION.inboxTemplate) },
    inboxSendForm("template"),
  );
  app.action({ action_id: actionIdPattern("sb_inbox_open") }, inboxOpenThread);
  // The card's desk: assign, resolve, reopen (issue 20).
  app.action<BlockAction>({ action_id: actionIdPattern(ACTION.inboxAssignMe) }, inboxDesk("me"));
  app.action<BlockAction>({ action_id: actionIdPattern(ACTION.inboxAssign) }, inboxDesk("pick"));
  app.action<BlockAction>({ action_id: actionIdPattern(ACTION.inboxUnassign) }, inboxDesk("unassign"));
  app.action<BlockAction>({ action_id: actionIdPattern(ACTION.inboxResolve) }, inboxDesk("resolve"));
  app.action<BlockAction>({ action_id: actionIdPattern(ACTION.inboxReopen) }, inboxDesk("reopen"));
  app.action<BlockAction>({ action_id: actionIdPattern(ACTION.inboxSnooze) }, inboxDesk("snooze"));
  app.action<BlockAction>({ action_id: actionIdPattern(ACTION.inboxWake) }, inboxDesk("wake"));
  app.action<BlockAction<ButtonAction>>({ action_id: actionIdPattern(ACTION.inboxSaved) }, inboxSavedReply);
  // The Home tab's kept outcomes: Got it (issue 27 §4).
  app.action<BlockAction<ButtonAction>>({ action_id: actionIdPattern(ACTION.keptSeen) }, keptSeenAction);
}
