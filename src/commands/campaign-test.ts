// A test of a campaign on one's own phone (issue 28 §2): the campaign's
// template with its values, once, to one phone number (remembered per person
// per workspace for next time), as a `POST /messages` of type `template`: the
// campaign and its recipients are not touched. The audit row (the transport's
// hook) carries the command line `campaign <id> test …`, so it reads as a test.
// A template the API will not send (not approved, a value missing) is refused
// before the request, in words.
import { z } from "zod";
import { isApiError } from "../api/errors.ts";
import type { ApiRecord } from "../api/types.ts";
import { ACTION } from "../blocks/actions.ts";
import { actions, capitalize, context, esc, section } from "../blocks/blocks.ts";
import { idArg, takeRecipient } from "./args.ts";
import { placeholdersOfTemplate } from "./defs/campaign-message.ts";
import { nameOf, refId } from "./defs/common.ts";
import { type CommandContext, defineCommand, UserError } from "./registry.ts";
import { pick, show } from "./render.ts";
import type { Reply } from "./types.ts";

/** The values a campaign record shows for its template's placeholders; undefined when it shows none. */
function valuesOf(c: ApiRecord): Record<string, string> | undefined {
  const v = pick(c, "templateParameters", "template_parameters");
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
}

/** Who the remembered number belongs to: the Slack user, or the shell. */
const personOf = (ctx: CommandContext) => (ctx.actor.via === "shell" ? "shell" : ctx.actor.userId);

/** The phone to test on: the one typed (then remembered), else the one remembered. */
async function phoneFor(ctx: CommandContext, id: number, words: string[]): Promise<string> {
  const example = `\`/sb campaign ${id} test +1 415 555 0123\``;
  if (!words.length) {
    const kept = await ctx.testPhones?.get(personOf(ctx));
    if (kept) return kept;
    throw new UserError(
      `Which phone should get the test? Give yours with its country code: ${example}. It is remembered for your next test.`,
      false,
    );
  }
  const taken = takeRecipient(words, ctx.defaultCountry);
  if ("error" in taken || taken.recipient.kind !== "phone" || taken.rest.length) {
    throw new UserError(
      `"${esc(words.join(" "))}" is not a phone number: a test goes to one phone number, with its country code (${example}); nothing was sent.`,
      false,
    );
  }
  await ctx.testPhones?.set(personOf(ctx), taken.recipient.to);
  return taken.recipient.to;
}

/** Sends the test, or refuses it in words before any write. */
export async function testCampaign(ctx: CommandContext, id: number, words: string[]): Promise<Reply> {
  const c = await ctx.api.getCampaign(id);
  const campaign = `*${esc(nameOf(c, `Campaign ${id}`))}*`;
  const templateId = refId(c, "templateId", "template_id");
  if (templateId === undefined)
    throw new UserError(
      `${campaign} names no template, so there is nothing to test; nothing was sent.`,
      false,
    );
  let t: ApiRecord;
  try {
    t = await ctx.api.getTemplate(templateId);
  } catch (err) {
    if (isApiError(err) && err.kind === "not_found")
      throw new UserError(
        `${campaign}'s template #${templateId} no longer exists: the campaign cannot be tested or sent as it is; nothing was sent.`,
        false,
      );
    throw err;
  }
  const template = `*${esc(show(pick(t, "name") ?? `#${templateId}`))}*`;
  const status = String(pick(t, "status") ?? "").toLowerCase();
  if (status && status !== "approved") {
    const reason = show(pick(t, "rejectionReason", "rejection_reason") ?? "");
    throw new UserError(
      `Template ${template} is ${esc(status)}${reason ? ` (${esc(reason)})` : ""}: the messaging API sends only approved templates, so ${campaign} cannot be tested yet; nothing was sent.`,
      false,
      [{ text: "Templates", line: "templates" }],
    );
  }
  const language = show(pick(t, "language") ?? "");
  const names = placeholdersOfTemplate(t);
  const values = valuesOf(c) ?? {};
  const missing = names.filter((n) => !values[n]?.trim());
  if (missing.length) {
    throw new UserError(
      `${campaign} has no value for ${missing.length === 1 ? "the placeholder" : "the placeholders"} ${missing
        .map((n) => `*${esc(n)}*`)
        .join(", ")} of template ${template}${
        valuesOf(c) ? "" : " (its record shows none: it was probably made outside Switchboard)"
      }, and the messaging API sends a template only with all its values; nothing was sent.`,
      false,
    );
  }
  const channelId =
    refId(c, "integrationId", "integration_id") ??
    refId(t, "integrationId", "integration_id") ??
    ctx.defaultChannelId;
  if (!language || channelId === undefined)
    throw new UserError(
      `Template ${template} shows no ${language ? "channel" : "language"}, which a message needs; nothing was sent.`,
      false,
    );
  const to = await phoneFor(ctx, id, words);
  const parameters = Object.fromEntries(names.map((n) => [n, values[n]!]));
  const m = await ctx.api.sendMessage({
    channelId,
    type: "template",
    to,
    template: {
      name: String(pick(t, "name")),
      language,
      ...(names.length ? { parameters } : {}),
    },
    metadata: { switchboard: "campaign test", campaignId: id },
  });
  const messageId = refId(m, "id");
  const said = String(pick(m, "status") ?? "").toLowerCase();
  const statusWord = said ? capitalize(said) : "Not told";
  const line = `:test_tube: Test of ${campaign} sent to ${esc(to)}: *${esc(statusWord)}*`;
  const blocks = [
    section(line),
    context(
      `Only this number got it: the campaign's recipients got nothing, and the campaign is unchanged.${
        messageId !== undefined ? ` Message #${messageId}.` : ""
      }`,
    ),
  ];
  return {
    visibility: "ephemeral",
    text: `${line}.`,
    blocks:
      messageId !== undefined
        ? [...blocks, actions([{ text: "Status", actionId: ACTION.run, value: `message ${messageId}` }])]
        : blocks,
  };
}

export const CAMPAIGN_TEST_COMMAND = defineCommand({
  id: "campaign.test",
  words: ["campaign", "<id>", "test"],
  positionals: [{ name: "phone", rest: "words", optional: true }],
  schema: z.object({ id: idArg, phone: z.array(z.string()).default([]) }),
  scope: "write",
  usage: "campaign <id> test [<phone>]",
  summary: "Send a campaign's message once to one phone number, yours: a test (its recipients get nothing)",
  help: "The campaign's template with its values, once, to the number given (with its country code); it is remembered for you, so `campaign <id> test` alone uses it next time. A template that is not approved, or a value it lacks, is refused before anything is sent.",
  example: "campaign 2 test +1 415 555 0123",
  topic: "campaigns",
  noun: "campaign",
  operations: ["getCampaign", "getTemplate", "sendMessage"],
  run: (a, ctx) => testCampaign(ctx, a.id, a.phone),
});
