// The away message (issue 40 §1, docs/automations.md): a customer who writes
// while the team is away (outside the workspace's business hours in its zone,
// or at any hour with "away now" on) gets the workspace's away message once
// per conversation per closed period, on the conversation's own channel
// (`POST /messages`, type text: their 24-hour window is open, they just
// wrote), its placeholders filled from their record as a saved reply's are.
// Nothing when the inbox turned it off, when the message was read after its
// closed period ended, or when the team wrote to the customer in the last
// hour. Claimed in the store before it is sent (one row per conversation and
// closed period: once across restarts and replicas); an outcome not known is
// recorded and never sent again. Recorded as Switchboard's own send, so its
// thread shows it as "Away message sent", and audited.
import { isApiError, NetworkError } from "../api/errors.ts";
import { messageChannelId, messageDirection, messageTime } from "../api/inbox.ts";
import type { Message } from "../api/types.ts";
import { awayPeriod } from "../domain/away.ts";
import { fillReply, type ReplyRecord } from "../domain/saved-reply.ts";
import type { AuditEntry } from "../store/audit.ts";
import type { AwayKey, AwayOutcome, Inbox, Thread } from "../store/inbox.ts";
import type { PassContext } from "./context.ts";

/** A conversation the team wrote in within this long gets no away message. */
export const TEAM_WROTE_MS = 3_600_000;

/** Who the away message's audit rows and own sends name: Switchboard itself, no person. */
export const AWAY_ACTOR = "switchboard";

/**
 * The away message for the customer's newest message among `mirrored` (those
 * this pass posted), when the team is away and nobody took it before.
 * Returns what became of it; undefined when none was due.
 */
export async function sendAway(
  ctx: PassContext,
  inbox: Inbox,
  thread: Thread,
  conversationId: number,
  mirrored: Message[],
): Promise<AwayOutcome | undefined> {
  const port = ctx.away;
  const rule = port?.rule();
  const wrote = mirrored.filter((m) => messageDirection(m) !== "outbound");
  const last = wrote.at(-1);
  // The conversation's own channel: the one the customer wrote on, else the chat user's.
  const channelId = (last && messageChannelId(last)) ?? thread.card?.channelId;
  if (!port || !rule || !inbox.away || !last || !channelId) return undefined;
  const times = wrote.map((m) => (messageTime(m) ?? ctx.now()).getTime());
  const now = ctx.now();
  const periodStart = awayPeriod(rule, ctx.workClock(), new Date(Math.max(...times)), now);
  if (!periodStart) return undefined;
  const { store, log } = ctx;
  const chatUserId = thread.chatUserId;
  if (await store.away.teamWroteSince(chatUserId, new Date(now.getTime() - TEAM_WROTE_MS))) return undefined;
  const key: AwayKey = { conversationId, periodStart };
  const claim = { ...key, channel: inbox.channel, chatUserId };
  if (!(await store.away.claim(claim, ctx.lease.workerId, now))) return undefined;

  const name = thread.card?.name ?? `Chat user #${chatUserId}`;
  const record = await port.record(chatUserId).catch((err): ReplyRecord => {
    // Unread, the fallbacks fill it ("Hi there").
    log.warn(
      { channel: inbox.channel, chatUserId, err: String(err) },
      "could not read the customer's record",
    );
    return {};
  });
  const text = fillReply(rule.text, record).trim() || rule.text;
  const audit = (outcome: AwayOutcome, extra: Partial<AuditEntry>, messageId?: number) =>
    port
      .audit({
        at: ctx.now(),
        actor: AWAY_ACTOR,
        via: "slack",
        channel: inbox.channel,
        command: "away message",
        operation: "inbox.away.message",
        ok: outcome === "sent",
        ...extra,
        answer: {
          outcome,
          customer: name,
          chatUserId,
          channel: inbox.channel,
          ...(messageId ? { messageId } : {}),
        },
      })
      .catch((err) => log.warn({ err: String(err) }, "could not audit an away message"));
  let outcome: AwayOutcome;
  try {
    const sent = await ctx.client.sendMessage(
      { channelId, chatUserId, type: "text", text },
      { lane: "background" },
    );
    const id = typeof sent.id === "number" ? sent.id : undefined;
    outcome = "sent";
    await store.away.settle(key, outcome, ctx.now(), id);
    if (id) await ctx.ownSends.record(id, AWAY_ACTOR, "away", ctx.now());
    await audit(outcome, {}, id);
  } catch (err) {
    // No answer (a timeout, a connection cut after the request left): it may have reached them; never sent again.
    const unknown = !isApiError(err) || (err instanceof NetworkError && err.mayHaveReachedServer);
    outcome = unknown ? "unknown" : "refused";
    await store.away.settle(key, outcome, ctx.now());
    await audit(outcome, isApiError(err) && err.status !== undefined ? { status: err.status } : {});
    log.warn(
      { channel: inbox.channel, chatUserId, outcome, err: (err as Error).message },
      outcome === "unknown"
        ? "an away message's outcome is not known; it is not sent again"
        : "the API refused an away message",
    );
  }
  log.info({ channel: inbox.channel, chatUserId, outcome }, "away message");
  return outcome;
}
