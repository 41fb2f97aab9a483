// Who runs a command, and where: what the command core, the reports and the
// imports know of a person. A leaf file (no imports), shared by every folder.

/**
 * How the person asked, as the audit tells it: `typed` a command line (the
 * slash command, the shell), clicked a `button` (on the approval card:
 * `approval`), or submitted a `form`. Unset: nobody asked in person (a held
 * start at its time, a workflow step, a reply written in an inbox thread).
 */
export type Gesture = "typed" | "button" | "approval" | "form";

/** Who runs a command, and where. */
export interface Actor {
  /** Slack user id (U…), or `shell` for the console. */
  userId: string;
  userName?: string;
  teamId?: string;
  /** Slack channel id where the command was typed (C…, D…, G…). */
  channelId?: string;
  via: "slack" | "shell";
  /** How the person asked (the audit says a typed line only for `typed`). */
  how?: Gesture;
}

/** `<@U…>` or `<!subteam^S…>`: how Slack shows an entry of the lists (a person, or a user group). */
export const mention = (entry: string) => (entry.startsWith("S") ? `<!subteam^${entry}>` : `<@${entry}>`);
