// `/sb inbox away on|off [#channel]` (issue 40 §1): whether the workspace's
// away message goes out in one inbox's conversations. On by default; an
// inbox turns it off for itself here or in the inbox form, never through
// `inbox on` (which sets an inbox as typed and leaves this as it is).
// Writers only, audited (`inbox.away`).
import { z } from "zod";
import { context, esc, section } from "../../blocks/blocks.ts";
import { errorReply } from "../errors.ts";
import { type AnySpec, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";
import { channelOf, channelRef, inboxOf } from "./inbox-common.ts";
import { about, inTopic } from "./shapes.ts";

const command = inTopic("inbox");

export const awaySpec: AnySpec = command({
  words: ["inbox", "away"],
  positionals: [{ name: "state" }, { name: "channel", optional: true }],
  schema: z.object({ state: z.string(), channel: z.string().optional() }),
  access: "write",
  usage: "inbox away on|off [#channel]",
  ...about("Whether the away message goes out in an inbox's conversations (default: here)", "inbox away off"),
  help: "The away message (`/sb settings set away=…`) answers a customer who writes outside business hours, once per conversation per closed period. `inbox away off` stops it in this inbox's conversations; `inbox away on` brings it back. `inbox on` leaves it as it is.",
  operations: [],
  run: async (a, ctx): Promise<Reply> => {
    const inbox = inboxOf(ctx);
    const state = a.state.trim().toLowerCase();
    if (state !== "on" && state !== "off")
      throw new UserError(
        `*state* \`${esc(a.state)}\` is neither on nor off: \`inbox away off\` stops the away message in this inbox, \`inbox away on\` brings it back.`,
      );
    const channel = channelOf(a.channel, ctx, `inbox away ${state}`);
    const on = state === "on";
    const r = await inbox.store.setAway(channel, on);
    if (!r)
      return errorReply(
        `There is no inbox in ${channelRef(channel)}: nothing was changed.`,
        "`/sb inbox` lists the inboxes.",
      );
    if (r.was === on) {
      const text = `The away message is already ${state} in the inbox in ${channelRef(channel)}.`;
      return { visibility: "ephemeral", text, blocks: [section(text)] };
    }
    await ctx.audit("inbox.away", true, { channel, on });
    const rule = inbox.away?.();
    const text = on
      ? `:zzz: The away message goes out again in the inbox in ${channelRef(channel)} (by ${ctx.who}).`
      : `:zzz: The away message is off in the inbox in ${channelRef(channel)} (by ${ctx.who}): its customers get none.`;
    const note = on
      ? rule
        ? "A customer who writes outside business hours gets it, once per conversation per closed period."
        : "The workspace has no away message yet: an admin sets it with `/sb settings set away=…` (or in Settings, Inbox)."
      : "`/sb inbox away on` brings it back.";
    return { visibility: "in_channel", text, blocks: [section(text), context(note)] };
  },
});
