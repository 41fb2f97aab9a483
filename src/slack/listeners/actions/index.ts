import type { BlockAction, ButtonAction } from "@slack/bolt";
import { ACTION } from "../../../commands/types.ts";
import { onAction } from "../on.ts";
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
  onAction<BlockAction<ButtonAction>>(app, { action_id: actionIdPattern(ACTION.run) }, runAction);
  onAction<BlockAction<ButtonAction>>(app, { action_id: actionIdPattern(ACTION.confirm) }, confirmAction);
  onAction<BlockAction<ButtonAction>>(app, { action_id: actionIdPattern(ACTION.dismiss) }, dismissAction);
  // The forms' own choices and options: src/slack/forms/index.ts.
  onAction<BlockAction>(app, { type: "block_actions", action_id: IMPORT_CONTROL_ACTIONS }, importControl);
  // Inbox cards (docs/inbox.md).
  onAction<BlockAction<ButtonAction>>(
    app,
    { action_id: actionIdPattern(ACTION.inboxReply) },
    inboxSendForm("text"),
  );
  onAction<BlockAction<ButtonAction>>(
    app,
    { action_id: actionIdPattern(ACTION.inboxTemplate) },
    inboxSendForm("template"),
  );
  onAction(app, { action_id: actionIdPattern("sb_inbox_open") }, inboxOpenThread);
  // The card's desk: assign, resolve, reopen (issue 20).
  onAction<BlockAction>(app, { action_id: actionIdPattern(ACTION.inboxAssignMe) }, inboxDesk("me"));
  onAction<BlockAction>(app, { action_id: actionIdPattern(ACTION.inboxAssign) }, inboxDesk("pick"));
  onAction<BlockAction>(app, { action_id: actionIdPattern(ACTION.inboxUnassign) }, inboxDesk("unassign"));
  onAction<BlockAction>(app, { action_id: actionIdPattern(ACTION.inboxResolve) }, inboxDesk("resolve"));
  onAction<BlockAction>(app, { action_id: actionIdPattern(ACTION.inboxReopen) }, inboxDesk("reopen"));
  onAction<BlockAction>(app, { action_id: actionIdPattern(ACTION.inboxSnooze) }, inboxDesk("snooze"));
  onAction<BlockAction>(app, { action_id: actionIdPattern(ACTION.inboxWake) }, inboxDesk("wake"));
  onAction<BlockAction<ButtonAction>>(
    app,
    { action_id: actionIdPattern(ACTION.inboxSaved) },
    inboxSavedReply,
  );
  // The Home tab's kept outcomes: Got it (issue 27 §4).
  onAction<BlockAction<ButtonAction>>(app, { action_id: actionIdPattern(ACTION.keptSeen) }, keptSeenAction);
}
