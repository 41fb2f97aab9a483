// A message sent later (issue 40 §2): `/sb send <to> <text> at=<when>` sets it
// on the claimed-once timer (src/store/timers.ts, kind `message.later`); one
// runner per process, over every workspace, sends it when due. Each is claimed
// first (waiting → running, one conditional update on the version read), so
// whichever process — a restart, another replica — gets there first sends it,
// once, and one cancelled or edited since it was read is not sent. The send is
// the writer's, through the core as it stands then (who may write, the audit,
// the API client's one road), and Switchboard's own (the inbox thread shows it
// as the writer's). Never repeated when its outcome is not known: recorded as
// unknown and the writer told. Outside the 24-hour window nothing is sent and
// the writer is told by DM, with the approved templates offered. Quiet hours
// are for campaigns: they do not hold a message a person timed.
import type { KnownBlock } from "@slack/types";
import { isApiError } from "../api/errors.ts";
import { ACTION } from "../blocks/actions.ts";
import { actions, esc, section, truncate } from "../blocks/blocks.ts";
import { dateToken, type StartRules } from "../domain/start-time.ts";
import { OwnSends } from "../store/own-sends.ts";
import type { Timers } from "../store/timers.ts";
import { failureOf, TimerRunner, type TimerRunnerOptions, words } from "../timers/runner.ts";
import {
  LATER_KIND,
  type LaterMessage,
  type LaterSend,
  laterLine,
  laterSaid,
  laterWhom,
} from "./later-message.ts";
import { UserError } from "./registry.ts";
import type { CommandCore } from "./types.ts";

export type Message = { text: string; blocks: KnownBlock[] };

/** What the runner needs of a connected workspace. */
export interface LaterSendWorkspace {
  core: Pick<CommandCore, "perform" | "audit">;
  rules: StartRules;
  /** A direct message to a person (the writer); absent: not told. */
  dm?: (userId: string, message: Message) => Promise<void>;
}

/** What became of a message when due (besides the timer's own: taken, waiting, failed). */
export type LaterOutcome = "sent" | "failed" | "unknown" | "window" | "late";

export type LaterSendRunnerOptions = Omit<
  TimerRunnerOptions<LaterMessage, LaterSendWorkspace, LaterOutcome>,
  "kind" | "run" | "settled" | "stoppedDetail"
> & {
  /** A message later than this (Switchboard was stopped at its time) is not sent; its writer is told (default one hour). */
  lateAfterMs?: number;
};

/** The detail of a message not sent because Switchboard was stopped at its time. */
export const MISSED = "Switchboard was stopped at its time, so it was not sent late";

/** The 24-hour window, as the API words a refusal of free text. */
const outsideWindow = (err: unknown) =>
  isApiError(err) && (err.status === 422 || err.status === 400) && /24.?hour|window/i.test(err.message);

/** The claimed-once timer's runner of messages sent later: one per process, over every workspace. */
export class LaterSendRunner extends TimerRunner<LaterMessage, LaterSendWorkspace, LaterOutcome> {
  private readonly lateAfterMs: number;

  constructor(opts: LaterSendRunnerOptions) {
    super({
      ...opts,
      kind: LATER_KIND,
      stoppedDetail: "Switchboard stopped while sending it",
      run: (s, ws, store) => this.send(s, ws, store),
      settled: async (s, ws) => {
        if (!ws) return;
        await ws.core.audit(
          { userId: s.setBy, via: s.via },
          { command: laterLine(s), operation: "message.later.unknown", ok: false, answer: answerOf(s) },
        );
        await this.tell(ws, s);
      },
    });
    this.lateAfterMs = opts.lateAfterMs ?? 3_600_000;
  }

  /** The writer's send, claimed by this process: through the core as it is now, its outcome recorded. */
  private async send(
    mine: LaterSend,
    ws: LaterSendWorkspace,
    store: Timers<LaterMessage>,
  ): Promise<LaterOutcome> {
    // A message timed by a person is not sent hours after its time ("good morning" at midnight): told instead.
    if (this.now().getTime() - mine.at.getTime() > this.lateAfterMs) {
      await this.finish(store, mine, ws, "failed", MISSED);
      return "late";
    }
    const actor = { userId: mine.setBy, via: mine.via };
    const body = mine.payload.body;
    let id: unknown;
    try {
      // Who may write, the audited client (its sentence), the API client's road: as they are now.
      const msg = await ws.core.perform(actor, { access: "write", command: laterLine(mine) }, async (api) => {
        // The person's name as the API has it now, for the audit's sentence (a read, never required).
        const { contactId, chatUserId } = body as { contactId?: number; chatUserId?: number };
        if (typeof contactId === "number") await api.getContact(contactId).catch(() => undefined);
        else if (typeof chatUserId === "number") await api.getChatUser(chatUserId).catch(() => undefined);
        return api.sendMessage(body);
      });
      id = msg.id;
    } catch (err) {
      if (err instanceof UserError)
        return this.finish(store, mine, ws, "failed", err.message.replace(/\.$/, ""));
      if (body.type !== "template" && outsideWindow(err)) return this.finish(store, mine, ws, "window", "");
      const { state, detail } = failureOf(err, "it may have been sent");
      return this.finish(store, mine, ws, state, detail);
    }
    await store.move(mine.number, ["running"], "done", this.now());
    // Switchboard's own send: the inbox's thread shows it as the writer's (docs/inbox.md).
    if (typeof id === "number")
      // stores: the later messages' runner works over every workspace: the message's own workspace's sends
      await new OwnSends(this.opts.db, mine.workspace).record(id, mine.setBy, "command").catch(() => {});
    this.log.info({ workspace: mine.workspace, number: mine.number }, "message sent later: sent");
    return "sent";
  }

  private async finish(
    store: Timers<LaterMessage>,
    s: LaterSend,
    ws: LaterSendWorkspace,
    outcome: "failed" | "unknown" | "window",
    detail: string,
  ): Promise<LaterOutcome> {
    const state = outcome === "unknown" ? "unknown" : "failed";
    const done = await store.move(s.number, ["running"], state, this.now(), {
      detail: outcome === "window" ? WINDOW_CLOSED : detail,
    });
    if (done) await this.tell(ws, done);
    return outcome;
  }

  /** The writer told by DM of a message not sent, or whose outcome is not known. */
  private async tell(ws: LaterSendWorkspace, s: LaterSend): Promise<void> {
    if (!ws.dm || s.via !== "slack") return;
    await ws
      .dm(s.setBy, laterNotSent(s, ws.rules.tz))
      .catch((err) => this.log.warn({ err: words(err) }, "message sent later: the writer could not be told"));
  }
}

/** The detail of a message not sent because the 24-hour window had closed. */
export const WINDOW_CLOSED = "the 24-hour window had closed";

const answerOf = (s: LaterSend) => ({ to: laterWhom(s.payload), at: s.at.toISOString(), number: s.number });

/** The DM to the writer: what became of their message, what it said, and what to do now. */
export function laterNotSent(s: LaterSend, tz: string | undefined): Message {
  const whom = `*${esc(laterWhom(s.payload))}*`;
  const when = dateToken(s.at, tz);
  const said = laterSaid(s.payload);
  const kept = said ? `Your message, kept here:\n>${esc(truncate(said, 2500)).replace(/\n/g, "\n>")}` : "";
  let text: string;
  const buttons: Array<{ text: string; line: string; style?: "primary" }> = [];
  if (s.state === "unknown") {
    text = `Whether your message to ${whom} was sent at ${when} is not known: ${esc(s.detail ?? "Switchboard stopped while sending it")}. It will not be sent again: check the conversation before sending it yourself.`;
  } else if (s.detail === WINDOW_CLOSED) {
    text = `Your message to ${whom} was not sent at ${when}: they last wrote more than 24 hours ago, so only an approved template can reach them now.`;
    buttons.push(
      { text: "Send a template…", line: `send ${s.payload.ref}`, style: "primary" },
      { text: "Approved templates", line: "templates status=approved" },
    );
  } else {
    text = `Your message to ${whom} was not sent at ${when}: ${esc(s.detail ?? "it failed")}.${
      s.detail === MISSED ? " Send it now, or set a new time." : ""
    }`;
  }
  const blocks: KnownBlock[] = [section(text), ...(kept ? [section(kept)] : [])];
  if (buttons.length)
    blocks.push(
      actions(
        // Each its own action id (Slack refuses two alike in one message).
        buttons.map((b, i) => ({
          text: b.text,
          actionId: `${ACTION.run}:${i + 1}`,
          value: b.line,
          ...(b.style ? { style: b.style } : {}),
        })),
      ),
    );
  const plain = text.replace(/<!date\^[^|]*\|([^>]*)>/g, "$1");
  return { text: kept ? `${plain}\n${kept}` : plain, blocks };
}
