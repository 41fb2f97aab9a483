// `campaign <id> test [<phone>]`: the command of a campaign's test on one's
// own phone. The test itself (what is checked, the turn, the send, the
// record) is src/campaigns/test-send.ts; this reads the phone typed.
import { z } from "zod";
import { esc } from "../../blocks/blocks.ts";
import { exampleOf, previewTest, testCampaign } from "../../campaigns/test-send.ts";
import { idArg, takeRecipient } from "../args.ts";
import { type CommandContext, UserError } from "../registry.ts";
import { about, inTopic, onCampaign } from "./shapes.ts";

const command = inTopic("campaigns");

/** The phone typed after `test`, as the API takes it; undefined when none was typed. */
function typedPhone(
  ctx: Pick<CommandContext, "defaultCountry">,
  id: number,
  words: string[],
): string | undefined {
  if (!words.length) return undefined;
  const taken = takeRecipient(words, ctx.defaultCountry);
  if ("error" in taken || taken.recipient.kind !== "phone" || taken.rest.length) {
    throw new UserError(
      `"${esc(words.join(" "))}" is not a phone number: a test goes to one phone number, with its country code (${exampleOf(id)}); nothing was sent.`,
      false,
    );
  }
  return taken.recipient.to;
}

export const CAMPAIGN_TEST_COMMAND = command({
  ...onCampaign(["test"], "write"),
  positionals: [{ name: "phone", rest: "words", optional: true }],
  schema: z.object({ id: idArg, phone: z.array(z.string()).default([]) }),
  usage: "campaign <id> test [<phone>]",
  ...about(
    "Send a campaign's message once to one phone number, yours: a test (its recipients get nothing)",
    "campaign 2 test +1 415 555 0123",
  ),
  help: "The campaign's template with its values, once, to the number given (with its country code); it is remembered for you, so `campaign <id> test` alone uses it next time. A number that is not your test number asks to confirm first. At most 10 tests a person an hour. A template that is not approved, or a value it lacks, is refused before anything is sent. In the customer's inbox thread it shows as a test of the campaign, by you.",
  operations: ["getCampaign", "getTemplate", "sendMessage"],
  preview: (a, ctx) => previewTest(ctx, a.id, () => typedPhone(ctx, a.id, a.phone)),
  run: (a, ctx) => testCampaign(ctx, a.id, () => typedPhone(ctx, a.id, a.phone)),
});
