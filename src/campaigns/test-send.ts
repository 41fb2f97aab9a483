// A test of a campaign on one's own phone (issue 28 §2): the campaign's
// template with its values, once, to one phone number (remembered per person
// per workspace for next time), as a `POST /messages` of type `template`: the
// campaign and its recipients are not touched. The audit row (the transport's
// hook) carries the command line `campaign <id> test …`, so it reads as a test.
// A template the API will not send (not approved, a value missing) is refused
// before the request, in words. Issue 37 §5: the message is recorded as
// Switchboard's own send, of this campaign by this person (the customer's
// inbox thread reads "Test of *Spring sale* by @ana"); a number that is not
// the person's test number asks to confirm once (the remembered one does
// not); at most 10 tests a person an hour, counted in the store (the turn
// taken before the send, so replicas share it), refused in words beyond that.
import { isApiError, NetworkError } from "../api/errors.ts";
import type { ApiRecord } from "../api/types.ts";
import { ACTION } from "../blocks/actions.ts";
import { actions, capitalize, context, esc, section } from "../blocks/blocks.ts";
import { nameOf, pick, placeholdersOfTemplate, refId, show } from "../domain/records.ts";
import { localParts } from "../domain/start-time.ts";
import { UserError } from "../platform/errors.ts";
import type { CampaignContext, CampaignReply, Preview } from "./context.ts";

/** The values a campaign record shows for its template's placeholders; undefined when it shows none. */
function valuesOf(c: ApiRecord): Record<string, string> | undefined {
  const v = pick(c, "templateParameters", "template_parameters");
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
}

/** Who the remembered number belongs to: the Slack user, or the shell. */
const personOf = (ctx: CampaignContext) => (ctx.actor.via === "shell" ? "shell" : ctx.actor.userId);

/** At most this many tests a person an hour, per workspace (issue 37 §5). */
export const TESTS_PER_HOUR = 10;
const HOUR_MS = 3_600_000;

/** How a test is typed, for the words of a refusal. */
export const exampleOf = (id: number) => `\`/sb campaign ${id} test +1 415 555 0123\``;

/**
 * The phone typed after `test`, as the API takes it (the command reads it; it throws a UserError in words when
 * what was typed is not one phone number); undefined when none was typed. Read when the test would use it.
 */
export type TypedPhone = () => string | undefined;

/** The phone to test on: the one typed, else the one remembered. */
async function phoneFor(ctx: CampaignContext, id: number, phone: TypedPhone): Promise<string> {
  const typed = phone();
  if (typed) return typed;
  const kept = await ctx.testPhones?.get(personOf(ctx));
  if (kept) return kept;
  throw new UserError(
    `Which phone should get the test? Give yours with its country code: ${exampleOf(id)}. It is remembered for your next test.`,
    false,
  );
}

/** "09:42" as a Slack time token (each reader's own zone), the workspace's time where Slack cannot show one. */
function timeToken(at: Date, tz: string | undefined): string {
  const p = localParts(at, tz ?? "UTC");
  const hhmm = `${String(p.hour).padStart(2, "0")}:${String(p.minute).padStart(2, "0")}`;
  return `<!date^${Math.floor(at.getTime() / 1000)}^{time}|${hhmm}${tz ? "" : " UTC"}>`;
}

/** The words of a refused turn: how many tests in the last hour, and when the next may go (to the minute, rounded up). */
function tooMany(ctx: CampaignContext, turn: { sent: number; nextAt: Date }): UserError {
  const next = new Date(Math.ceil(turn.nextAt.getTime() / 60_000) * 60_000);
  return new UserError(
    `You have sent ${turn.sent} tests in the last hour; the next can go at ${timeToken(next, ctx.startRules.tz)}. At most ${TESTS_PER_HOUR} tests a person an hour; nothing was sent.`,
    false,
  );
}

/** A campaign's test as it would be sent: everything but the phone, or a refusal in words before any write. */
interface Prepared {
  id: number;
  /** The campaign's name as shown (mrkdwn) and as kept. */
  campaign: string;
  name: string;
  channelId: number;
  template: { name: string; language: string; parameters?: Record<string, string> };
}

async function prepareTest(ctx: CampaignContext, id: number): Promise<Prepared> {
  const c = await ctx.api.getCampaign(id);
  const name = nameOf(c, `Campaign ${id}`);
  const campaign = `*${esc(name)}*`;
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
  const parameters = Object.fromEntries(names.map((n) => [n, values[n]!]));
  return {
    id,
    campaign,
    name,
    channelId,
    template: { name: String(pick(t, "name")), language, ...(names.length ? { parameters } : {}) },
  };
}

/**
 * A number that is not the person's test number asks once (issue 37 §5): the
 * prompt, after the checks a send would refuse on (nothing to confirm then).
 * The remembered number, or none typed, sends at once.
 */
export async function previewTest(
  ctx: CampaignContext,
  id: number,
  phone: TypedPhone,
): Promise<Preview | undefined> {
  const typed = phone();
  if (!typed) return undefined;
  const kept = await ctx.testPhones?.get(personOf(ctx));
  if (kept === typed) return undefined;
  const p = await prepareTest(ctx, id);
  const turn = await ctx.testSends?.peek(personOf(ctx), ctx.now(), TESTS_PER_HOUR, HOUR_MS);
  if (turn && !turn.ok) throw tooMany(ctx, turn);
  const text = `:test_tube: Send a test of ${p.campaign} to ${esc(typed)}?`;
  return {
    text,
    blocks: [
      section(text),
      context(
        `${kept ? `Your test number is ${esc(kept)}; this one is new` : "You have no test number yet"}: check it is your phone, since the campaign's message goes to it. Once sent, it is remembered, and your next tests go to it without asking.`,
      ),
    ],
    confirm: { text: "Send test", style: "primary" },
  };
}

/** Sends the test, or refuses it in words before any write. */
export async function testCampaign(
  ctx: CampaignContext,
  id: number,
  phone: TypedPhone,
): Promise<CampaignReply> {
  const p = await prepareTest(ctx, id);
  const to = await phoneFor(ctx, id, phone);
  const person = personOf(ctx);
  // The turn is taken before the send, in one statement: two tests at once, on any replica, never pass the limit.
  const now = ctx.now();
  const turn = await ctx.testSends?.take(person, now, TESTS_PER_HOUR, HOUR_MS);
  if (turn && !turn.ok) throw tooMany(ctx, turn);
  let m: ApiRecord;
  try {
    m = await ctx.api.sendMessage({
      channelId: p.channelId,
      type: "template",
      to,
      template: p.template,
      metadata: { switchboard: "campaign test", campaignId: id },
    });
  } catch (err) {
    // Surely not sent: the turn is given back. One that may have been sent keeps it.
    if (!(err instanceof NetworkError && err.mayHaveReachedServer))
      await ctx.testSends?.giveBack(person, now).catch(() => {});
    throw err;
  }
  await ctx.testPhones?.set(person, to);
  const messageId = refId(m, "id");
  // Switchboard's own send: the customer's inbox thread shows it as this campaign's test, by this person.
  if (messageId !== undefined)
    await ctx.testSends?.sent(messageId, person, { id, name: p.name }, now).catch(() => {});
  const said = String(pick(m, "status") ?? "").toLowerCase();
  const statusWord = said ? capitalize(said) : "Not told";
  const line = `:test_tube: Test of ${p.campaign} sent to ${esc(to)}: *${esc(statusWord)}*`;
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
