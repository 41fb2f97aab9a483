// Channel names: the API cannot list its channels (integrations), so people
// name them once and every screen shows "Main line" instead of `#1`.
import { z } from "zod";
import { esc, section } from "../../blocks/blocks.ts";
import { idArg, requiredText } from "../args.ts";
import { nameChannelsLine, templateChannels } from "../lookups.ts";
import { pageReply } from "../render.ts";
import { announce } from "./common.ts";
import { about, inTopic, listing } from "./shapes.ts";

const command = inTopic("channels");

export const CHANNEL_COMMANDS = [
  command({
    ...listing("channels"),
    summary: "The messaging channels and their names (the ones named, and the ones the templates use)",
    operations: ["listTemplates"],
    run: async (_a, ctx) => {
      // The API lists no channels: the named ones, and the ones its templates use (a name is asked for those).
      const [names, used] = await Promise.all([
        ctx.channels.all(),
        templateChannels(ctx.api).catch(() => [] as number[]),
      ]);
      const unnamed = used.filter((id) => !names.has(id));
      const items = [...new Set([...names.keys(), ...unnamed])]
        .sort((x, y) => x - y)
        .map((id) => ({ id, name: names.get(id) }));
      const footer = nameChannelsLine(unnamed);
      const reply = pageReply({
        title: "Channels",
        one: "channel",
        plural: "channels",
        page: { items, page: 1, limit: Math.max(1, items.length), total: items.length },
        line: (c) =>
          `${c.name === undefined ? `Channel ${c.id} · no name yet` : `*${esc(c.name)}* · channel ${c.id}`}${c.id === ctx.defaultChannelId ? " · the default" : ""}`,
        empty: "No channel has a name yet: `/sb channel name 1 Main line` names channel 1.",
        ...(footer ? { footer } : {}),
      });
      return reply;
    },
  }),
  command({
    words: ["channel", "name"],
    positionals: [{ name: "id" }, { name: "name", rest: "text" }],
    schema: z.object({ id: idArg, name: requiredText("the channel's name").pipe(z.string().max(80)) }),
    access: "write",
    ...about("Name a messaging channel (shown instead of its number)", "channel name 1 Main line"),
    operations: [],
    run: async (a, ctx) => {
      const before = await ctx.channels.set(a.id, a.name, ctx.actor.userId);
      await ctx.audit("nameChannel", true, { id: a.id, name: a.name, before: before ?? null });
      const text =
        before && before !== a.name
          ? `Channel ${a.id} renamed from “${esc(before)}” to *${esc(a.name)}*.`
          : `Channel ${a.id} is now called *${esc(a.name)}*.`;
      const reply = announce(ctx, text);
      reply.blocks = [section(text)];
      return reply;
    },
  }),
];
