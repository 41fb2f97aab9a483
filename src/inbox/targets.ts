// Reply targets (issue 29 §2, docs/inbox.md "Reply targets"): the clocks a
// conversation's messages start and stop, and the warnings and breaches they
// come to. A customer message starts a clock when none runs (the first reply
// target for a new or reopened conversation, the next reply target after);
// a reply sent to the customer stops it (a note is never sent, so it never
// does), as do a resolve and a snooze. The inbox's pass checks its clocks
// each time it runs (store reads only, no API read): at 80% of a target a
// warning in the thread, at 100% a breach line and the card redrawn once;
// each claimed in the store before it is posted, so posted once across
// restarts and replicas.
import { messageDirection, messageTime } from "../api/inbox.ts";
import type { Message } from "../api/types.ts";
import type { DeskState, DueClock, Inbox } from "../store/inbox.ts";
import { redrawCard } from "./cards.ts";
import type { PassContext } from "./context.ts";
import type { TargetNotice } from "./io.ts";
import { LeaseLost } from "./lease.ts";

/**
 * The clocks of a batch of new messages, oldest first: a customer message
 * starts one (when none runs), a message to the customer stops it. Run
 * before the customer's messages reopen a resolved conversation
 * (`deskState` as it was): its first message then starts a first-reply clock.
 * Replays of the same messages change nothing.
 */
export async function clockMessages(
  ctx: PassContext,
  channel: string,
  chatUserId: number,
  deskState: DeskState,
  messages: Message[],
): Promise<void> {
  if (!messages.length) return;
  const { clocks } = ctx.store;
  const targets = await clocks.targets(channel);
  const clock = ctx.workClock();
  let reopening = deskState === "resolved";
  for (const m of messages) {
    const at = messageTime(m) ?? ctx.now();
    if (messageDirection(m) === "outbound") {
      const own = typeof m.id === "number" ? await ctx.ownSends.of(m.id) : undefined;
      // The away message (issue 40 §1) is no reply: the clock runs on.
      if (own?.via === "away") continue;
      await clocks.replied(channel, chatUserId, at, own?.userId ?? null, clock);
    } else {
      await clocks.customerWrote(channel, chatUserId, at, { first: reopening, targets, clock });
      reopening = false;
    }
  }
}

/**
 * The warnings and breaches due in an inbox now, each claimed before it is
 * posted (once, whoever else checks); a breach redraws the card once. A post
 * the front end refused is given back for the next pass; one whose outcome
 * is unknown is not posted again.
 */
export async function checkTargets(ctx: PassContext, inbox: Inbox): Promise<number> {
  const { store, io, log, lease } = ctx;
  const now = ctx.now();
  const due = await store.clocks.due(inbox.channel, now);
  if (!due.length) return 0;
  const here = (await store.clocks.targets(inbox.channel))?.here ?? false;
  let posted = 0;
  for (const c of due) {
    const what = (c.dueAt as Date) <= now ? "breach" : "warning";
    const took =
      what === "breach" ? await store.clocks.claimBreach(c, now) : await store.clocks.claimWarning(c, now);
    if (!took) continue;
    try {
      await lease.keep(inbox.channel);
      await io.postTargetNotice(inbox.channel, c.threadTs, noticeOf(c, what, here));
      posted++;
    } catch (err) {
      if (err instanceof LeaseLost) throw err;
      if (io.errorCode(err) && !io.channelClosed(err)) await store.clocks.release(c, what).catch(() => {});
      log.warn(
        { channel: inbox.channel, code: io.errorCode(err), what },
        "could not post a reply target's notice",
      );
      if (io.channelClosed(err)) throw err;
      continue;
    }
    if (what === "breach") {
      await redraw(ctx, inbox.channel, c.chatUserId);
      const n = noticeOf(c, what, here);
      await ctx.told({
        type: "reply_target.breached",
        channel: inbox.channel,
        chatUserId: c.chatUserId,
        customerName: n.name,
        target: n.kind,
        targetSecs: n.targetSecs,
      });
    }
  }
  return posted;
}

function noticeOf(c: DueClock, what: "warning" | "breach", here: boolean): TargetNotice {
  return {
    what,
    kind: c.kind,
    dueAt: c.dueAt as Date,
    startedAt: c.startedAt,
    targetSecs: c.targetSecs ?? 0,
    holder: c.holder,
    name: c.name ?? `Chat user #${c.chatUserId}`,
    // Nobody has it: the warning is shown in the channel too (@here when the inbox asked for it).
    broadcast: what === "warning" && !c.holder,
    here: what === "warning" && !c.holder && here,
  };
}

/** The card once its target is missed: "Reply target missed" (the one edit a target makes). */
async function redraw(ctx: PassContext, channel: string, chatUserId: number): Promise<void> {
  const t = await ctx.store.thread(channel, chatUserId);
  if (!t?.threadTs || !t.card) return;
  try {
    await redrawCard({ marks: ctx.marks, update: ctx.io.updateCard }, t, t.threadTs, t.card, ctx.now());
  } catch (err) {
    ctx.log.warn({ channel, code: ctx.io.errorCode(err) }, "could not update an inbox card");
  }
}
