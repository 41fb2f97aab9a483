// `/sb …` (or whatever the workspace renamed it to): acked at once, then run
// the line through the core and answer through response_url or the channel.
import { giveWay } from "../../../platform/turns.ts";
import { ackOnce, personOf } from "../../context.ts";
import { deliver } from "../../deliver.ts";
import { showKept } from "../../outcomes.ts";
import type { CommandArgs } from "../on.ts";

export async function sbCommand({ command, ack, respond, client, ctx }: CommandArgs): Promise<void> {
  // Acknowledged by the first middleware (listeners/middleware.ts), unless this runs without it.
  await ackOnce(ctx, ack);
  // The answer's work after the ack comes in turns of the event loop: a request that arrives meanwhile is
  // acknowledged between two of them, not after all of them (bench/slack-ack.bench.ts).
  await giveWay();
  const actor = personOf(ctx);
  // Noted until answered: if this process is killed meanwhile, the next start tells the person.
  const done = await ctx.noted({
    userId: actor.userId,
    // `/sb connect key=…`: the key never goes into the store in the clear.
    line: command.text.replace(/\b(key|token|secret|password)=("[^"]*"|\S+)/gi, "$1=[redacted]"),
    responseUrl: command.response_url,
  });
  try {
    await giveWay();
    const reply = await ctx.core.run(command.text, actor);
    await giveWay();
    await deliver(reply, { client, respond, actor, triggerId: command.trigger_id, line: command.text }, ctx);
    // Outcomes Slack would not take earlier (outcomes.ts): said with this answer.
    await showKept(ctx, actor.userId, respond, client);
  } finally {
    await done();
  }
}
