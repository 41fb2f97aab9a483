// What the inbox's commands share: the inbox's access, a channel as typed, a
// channel as Slack shows it.
import { esc } from "../../blocks/blocks.ts";
import type { InboxDeps } from "../inbox.ts";
import { type CommandContext, UserError } from "../registry.ts";

const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;

export function inboxOf(ctx: CommandContext): InboxDeps {
  if (!ctx.inbox) throw new UserError("The inbox is not set up in this Switchboard.", false);
  return ctx.inbox;
}

/** `<#C1|general>` arrives as C1; `#C1` and `C1` are typed in the shell. Default: where the command was typed. */
export function channelOf(typed: string | undefined, ctx: CommandContext, usage: string): string {
  const raw = (typed ?? ctx.actor.channelId ?? "").replace(/^#/, "");
  if (!raw)
    throw new UserError(
      `*channel* is required here: name it as a Slack channel id, for example \`/sb ${usage} C0123ABCD\`.`,
    );
  if (!CHANNEL_ID.test(raw))
    throw new UserError(
      ctx.actor.via === "shell"
        ? `*channel* \`${esc(typed ?? raw)}\` is not a channel id: give the Slack channel's id, for example C0123ABCD (Slack shows it at the bottom of the channel's details).`
        : `*channel* \`${esc(typed ?? raw)}\` is not a channel: type # and pick the channel from Slack's list (it turns blue).`,
    );
  return raw;
}

/** `<#C1>` in Slack; the bare id in the shell. */
export const channelRef = (channel: string) => `<#${channel}>`;
