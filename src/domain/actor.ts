// Who runs a command, and where: what the command core, the reports and the
// imports know of a person. A leaf file (no imports), shared by every folder.

/** Who runs a command, and where. */
export interface Actor {
  /** Slack user id (U…), or `shell` for the console. */
  userId: string;
  userName?: string;
  teamId?: string;
  /** Slack channel id where the command was typed (C…, D…, G…). */
  channelId?: string;
  via: "slack" | "shell";
}
