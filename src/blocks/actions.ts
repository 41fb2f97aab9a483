// Action ids of the buttons the command core and the reports put in their
// messages. The Bolt app registers one listener per id; the value carries
// everything needed. A leaf file: the core, the reports and Slack share it.
export const ACTION = {
  /** value: a command line to run as the clicking user (paging, "open", "refresh"). */
  run: "sb_run",
  /** value: confirmation id. Performs the confirmed write, once. */
  confirm: "sb_confirm",
  /** value: confirmation id. Drops the pending confirmation. */
  dismiss: "sb_dismiss",
  /** value: chat user id. An inbox card's Reply: a modal whose text is sent to the customer. */
  inboxReply: "sb_inbox_reply",
  /** value: chat user id. An inbox card's Send template: the send form, prefilled with this chat user. */
  inboxTemplate: "sb_inbox_template",
  /** value: chat user id. An inbox card's Assign to me (the thread: the card's channel and ts). */
  inboxAssignMe: "sb_inbox_assign_me",
  /** A user select on an inbox card (block id `sb_inbox_desk:<chat user id>`): gives the thread to that person. */
  inboxAssign: "sb_inbox_assign",
  /** value: chat user id. An inbox card's Unassign (shown once someone has the conversation). */
  inboxUnassign: "sb_inbox_unassign",
  /** value: chat user id. An inbox card's Resolve. */
  inboxResolve: "sb_inbox_resolve",
  /** value: chat user id. A resolved inbox card's Reopen. */
  inboxReopen: "sb_inbox_reopen",
  /** A static select on an open inbox card (block id `sb_inbox_desk:<chat user id>`): snooze it (issue 29 §3). */
  inboxSnooze: "sb_inbox_snooze",
  /** value: chat user id. A snoozed inbox card's Wake up. */
  inboxWake: "sb_inbox_wake",
  /** value: chat user id. An inbox card's Saved reply…: the saved replies modal (issue 29 §1). */
  inboxSaved: "sb_inbox_saved",
  /** value: the newest kept outcome shown (epoch ms). The Home tab's Got it: the person's kept outcomes taken (issue 27 §4). */
  keptSeen: "sb_kept_seen",
} as const;
