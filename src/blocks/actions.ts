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
} as const;
