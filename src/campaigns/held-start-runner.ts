// Runs held starts when due (issue 28 §4, issue 37 §1): the claimed-once
// timer's runner (src/timers/runner.ts) of kind `campaign-start`, one per
// process, over every workspace's starts. Each start is claimed in the store
// first (held → running, one conditional update on the version it read), so
// whichever process — a restart, another replica on the same database — gets
// there first starts it, once, and a start moved or cancelled since it was
// read is not run. Then the workspace core's startHeld (the requester may
// still send campaigns; the one road, campaigns/road.ts, with every
// rail as it is now), audited as the person who asked; never repeated when
// its outcome is not known. A start more than an hour late (Switchboard was
// stopped) is not run: it is held and its requester asked ("Start now?"). A
// workspace not connected or departed: its starts wait (`forWorkspace` gives
// nothing).
import type { KnownBlock } from "@slack/types";
import { esc } from "../blocks/blocks.ts";
import type { StartRules } from "../domain/start-time.ts";
import { dateToken } from "../domain/start-time.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import { UserError } from "../platform/errors.ts";
import {
  CAMPAIGN_START,
  type CampaignStartPayload,
  type HeldStart,
  HeldStarts,
  heldOf,
} from "../store/held-starts.ts";
import { failureOf, TimerRunner, type TimerRunnerOptions, words } from "../timers/runner.ts";
import type { HeldStartCore, StartOutcome } from "./context.ts";
import { heldCard } from "./held-starts.ts";

export type Message = { text: string; blocks: KnownBlock[] };

/** What the runner needs of a connected workspace; the front end gives the two ways to tell people. */
export interface HeldStartWorkspace {
  core: HeldStartCore;
  rules: StartRules;
  /** Edits the start's card (its channel and ts are on the start); absent: not edited. */
  updateCard?: (channel: string, ts: string, message: Message) => Promise<void>;
  /** A direct message to a person (the requester); absent: not told. */
  dm?: (userId: string, message: Message) => Promise<void>;
  /**
   * A start that ran: its card (edited to "Started at …") becomes the campaign's live card, followed while it
   * sends (issue 37 §4); absent: not followed.
   */
  live?: (s: HeldStart, campaign: { name: string; status: string }) => Promise<void>;
}

/**
 * An extra check after a held start's claim (tests): `ok: false` holds the
 * start and tells the requester the reason. Unset: none (the rails are the road's).
 */
export type StartCheck = (
  workspace: WorkspaceId,
  campaignId: number,
) => Promise<{ ok: true } | { ok: false; reason: string }>;

export type HeldOutcome =
  | "sent"
  | "taken"
  | "skipped"
  | "asked"
  | "refused"
  | "failed"
  | "unknown"
  | "waiting"
  | "quiet";

export type HeldStartRunnerOptions = Omit<
  TimerRunnerOptions<CampaignStartPayload, HeldStartWorkspace, HeldOutcome>,
  "kind" | "run" | "beforeClaim" | "settled" | "stoppedDetail" | "workMaxMs"
> & {
  check?: StartCheck;
  /** A start later than this is held and its requester asked (default one hour). */
  lateAfterMs?: number;
  /**
   * How long a start's send can take (default one minute; the API's deadline is 20 s): a start claimed by a
   * process not alive is settled only once it has run this long, so a claimer whose heartbeat is late or that
   * does not beat (an older version during an upgrade) is not told unknown mid-send.
   */
  sendMaxMs?: number;
};

/** The claimed-once timer's runner of held starts (kind `campaign-start`): one per process, over every workspace. */
export class HeldStartRunner extends TimerRunner<CampaignStartPayload, HeldStartWorkspace, HeldOutcome> {
  private readonly held: HeldStartRunnerOptions;

  constructor(opts: HeldStartRunnerOptions) {
    const { check: _check, lateAfterMs: _late, sendMaxMs, ...rest } = opts;
    super({
      ...rest,
      kind: CAMPAIGN_START,
      ...(sendMaxMs !== undefined ? { workMaxMs: sendMaxMs } : {}),
      stoppedDetail: "Switchboard stopped while starting it",
      beforeClaim: (t, ws) => this.late(heldOf(t), ws),
      // stores: the held starts' due scan runs over every workspace: the start's own workspace's store
      run: (t, ws) => this.send(heldOf(t), ws, new HeldStarts(this.opts.db, t.workspace)),
      settled: (t, ws) => this.tell(heldOf(t), ws, true),
    });
    this.held = opts;
  }

  /** More than an hour late (Switchboard was stopped): not run, held and its requester asked. */
  private async late(s: HeldStart, ws: HeldStartWorkspace): Promise<HeldOutcome | undefined> {
    const now = this.now();
    const late = now.getTime() - s.at.getTime();
    if (late <= (this.held.lateAfterMs ?? 3_600_000)) return undefined;
    // stores: the held starts' due scan runs over every workspace: the start's own workspace's store
    const asked = await new HeldStarts(this.opts.db, s.workspace).move(s.id, ["held"], "asked", now, {
      version: s.version,
    });
    if (!asked) return "taken";
    await this.audit(ws, asked, "campaign.hold.asked", false, { late: Math.round(late / 60_000) });
    await this.tell(asked, ws, true);
    return "asked";
  }

  /** The start this process claimed (`running`): the check hook, then the one road; its outcome recorded. */
  private async send(mine: HeldStart, ws: HeldStartWorkspace, store: HeldStarts): Promise<HeldOutcome> {
    if (this.held.check) {
      const verdict = await this.held.check(mine.workspace, mine.campaignId).catch((err: unknown) => ({
        ok: false as const,
        reason: `the check before starting failed (${words(err)})`,
      }));
      if (!verdict.ok) return this.refuse(store, mine, ws, verdict.reason);
    }
    const actor = { userId: mine.requestedBy, via: mine.via };
    let outcome: StartOutcome;
    try {
      // The one road (campaigns/road.ts): who may, the state, the audience, the quiet hours and the
      // approval, each as it stands now; the only call of POST /campaigns/{id}/send.
      outcome = await ws.core.startHeld(actor, mine.campaignId);
    } catch (err) {
      if (err instanceof UserError) return this.refuse(store, mine, ws, err.message);
      const { state, detail } = failureOf(err, "it may have started");
      return this.finish(store, mine, ws, state, detail);
    }
    if (outcome.kind === "quiet") {
      // Quiet hours set (or begun) since it was held: it waits to their end, told on its card.
      const later = await store.move(mine.id, ["running"], "held", this.now(), {
        at: outcome.until,
        reason: "quiet",
      });
      if (later) {
        await this.audit(ws, later, "campaign.hold", true, { reason: "quiet" });
        await this.tell(later, ws, false);
      }
      return "quiet";
    }
    if (outcome.kind === "refused" && outcome.rail === "state") {
      const why =
        outcome.status === "cancelled"
          ? "the campaign was cancelled meanwhile"
          : outcome.status === "completed" || outcome.status === "running" || outcome.status === "paused"
            ? "the campaign was already sent meanwhile"
            : "the campaign failed meanwhile";
      const done = await store.move(mine.id, ["running"], "skipped", this.now(), { detail: why });
      if (done) {
        await this.audit(ws, done, "campaign.hold.skipped", false, { reason: why });
        await this.tell(done, ws, false, { status: outcome.status ?? "", name: done.campaignName });
      }
      return "skipped";
    }
    if (outcome.kind === "refused") return this.refuse(store, mine, ws, outcome.reason);
    const done = await store.move(mine.id, ["running"], "sent", this.now());
    if (done) {
      await this.tell(done, ws, false, outcome.campaign);
      if (done.channel && done.ts && ws.live) {
        const c = outcome.campaign;
        await ws
          .live(done, {
            name: typeof c.name === "string" ? c.name : done.campaignName,
            status: String(c.status ?? "running"),
          })
          .catch((err) => this.log.warn({ err: words(err) }, "held start: its card is not followed"));
      }
    }
    this.log.info({ workspace: mine.workspace, campaign: mine.campaignId }, "held start sent");
    return "sent";
  }

  /** Held: the road (or the check) said no, in words; the requester is told. */
  private async refuse(
    store: HeldStarts,
    s: HeldStart,
    ws: HeldStartWorkspace,
    reason: string,
  ): Promise<HeldOutcome> {
    const plain = reason.replace(/\.$/, "");
    const refused = await store.move(s.id, ["running"], "refused", this.now(), { detail: plain });
    if (!refused) return "taken";
    await this.audit(ws, refused, "campaign.hold.refused", false, { reason: plain });
    await this.tell(refused, ws, true);
    return "refused";
  }

  private async finish(
    store: HeldStarts,
    s: HeldStart,
    ws: HeldStartWorkspace,
    state: "failed" | "unknown",
    detail: string,
  ): Promise<HeldOutcome> {
    const done = await store.move(s.id, ["running"], state, this.now(), { detail });
    if (done) {
      await this.audit(ws, done, "campaign.hold.failed", false, { reason: detail });
      await this.tell(done, ws, true);
    }
    return state;
  }

  /** An audit entry in words (auditSentence): who asked, what happened to the start; in the audit channel too. */
  private async audit(
    ws: HeldStartWorkspace,
    s: HeldStart,
    operation: string,
    ok: boolean,
    answer: Record<string, unknown>,
  ) {
    await ws.core.audit(
      { userId: s.requestedBy, via: s.via },
      {
        at: this.now(),
        command: `campaign ${s.campaignId} send (held start)`,
        operation,
        ok,
        answer: { name: s.campaignName, at: s.at.toISOString(), ...answer },
      },
    );
  }

  /** The card edited to the start's new state; the requester told by DM when something needs them. */
  private async tell(
    s: HeldStart,
    ws: HeldStartWorkspace | undefined,
    dm: boolean,
    c?: { status?: unknown; name?: unknown },
  ) {
    if (!ws) return;
    const card = heldCard(
      s,
      ws.rules,
      c
        ? { status: String(c.status ?? ""), ...(typeof c.name === "string" ? { name: c.name } : {}) }
        : undefined,
    );
    if (s.channel && s.ts && ws.updateCard)
      await ws
        .updateCard(s.channel, s.ts, card)
        .catch((err) => this.log.warn({ err: words(err) }, "held start: the card could not be edited"));
    if (!dm || !ws.dm || s.via !== "slack") return;
    const name = `*${esc(s.campaignName)}*`;
    const text =
      s.state === "asked"
        ? `${name} was to start at ${dateToken(s.at, ws.rules.tz)}, while Switchboard was stopped. Start now?`
        : s.state === "refused"
          ? `${name} did not start at ${dateToken(s.at, ws.rules.tz)}: ${esc(s.detail ?? "")}. It is held.`
          : s.state === "unknown"
            ? `Whether ${name} started at ${dateToken(s.at, ws.rules.tz)} is not known: ${esc(s.detail ?? "Switchboard stopped while starting it")}. Open it to check before sending again.`
            : `${name} did not start at ${dateToken(s.at, ws.rules.tz)}: ${esc(s.detail ?? "")}.`;
    await ws
      .dm(s.requestedBy, {
        text: text.replace(/<!date\^[^|]*\|([^>]*)>/g, "$1"),
        blocks: [{ type: "section", text: { type: "mrkdwn", text } }, ...card.blocks.slice(0)],
      })
      .catch((err) => this.log.warn({ err: words(err) }, "held start: the requester could not be told"));
  }
}
