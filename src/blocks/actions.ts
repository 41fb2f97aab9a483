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
} as const;
