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
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KnownBlock } from "@slack/types";
import { isApiError, NetworkError } from "../api/errors.ts";
import { ACTION } from "../blocks/actions.ts";
import { actions, esc, section, truncate } from "../blocks/blocks.ts";
import { dateToken, type StartRules } from "../domain/start-time.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import { PacedLoop } from "../platform/paced-loop.ts";
import type { Db } from "../store/db.ts";
import { OwnSends } from "../store/own-sends.ts";
import { Timers } from "../store/timers.ts";
import {
  LATER_KIND,
  type LaterMessage,
  type LaterSend,
  laterLine,
  laterSaid,
  laterSendsOf,
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

export type LaterOutcome = "sent" | "taken" | "failed" | "unknown" | "window" | "waiting";

export interface LaterSendRunnerOptions {
  db: Db;
  /** A workspace's core and front end, or undefined when it is not connected (its messages wait). */
  forWorkspace: (workspace: WorkspaceId) => Promise<LaterSendWorkspace | undefined>;
  now?: () => Date;
  /** Longest wait between two looks at the store (default 15 s). */
  pollMs?: number;
  /** A message left `running` this long by a stopped process is told as unknown (default 10 minutes). */
  staleMs?: number;
  /** How long a send can take (default one minute): a claimer not alive is settled only after it. */
  sendMaxMs?: number;
  workerId?: string;
  /** The processes alive now (store/live-replicas.ts), this one among them; unset: only staleMs. */
  liveWorkers?: () => Promise<ReadonlySet<string>>;
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
}

const silent = { info() {}, warn() {} };
const words = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The 24-hour window, as the API words a refusal of free text. */
const outsideWindow = (err: unknown) =>
  isApiError(err) && (err.status === 422 || err.status === 400) && /24.?hour|window/i.test(err.message);

export class LaterSendRunner {
  private readonly opts: LaterSendRunnerOptions;
  private readonly loop: PacedLoop<LaterOutcome[]>;
  readonly workerId: string;

  constructor(opts: LaterSendRunnerOptions) {
    this.opts = opts;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.loop = new PacedLoop({
      pass: () => this.pass(),
      next: async () => {
        const poll = this.opts.pollMs ?? 15_000;
        const due = await Timers.nextDue(this.opts.db, LATER_KIND).catch(() => undefined);
        if (!due) return poll;
        return Math.max(250, Math.min(poll, due.getTime() - this.now().getTime()));
      },
      onError: (err) => this.log.warn({ err: words(err) }, "messages sent later: a pass failed"),
    });
  }

  private get log() {
    return this.opts.logger ?? silent;
  }
  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  async start(): Promise<void> {
    this.loop.start();
  }
  async stop(): Promise<void> {
    await this.loop.stop();
  }
  /** A message was set or moved: look now. */
  wake(): void {
    this.loop.wake();
  }

  /** One look: what a stopped process left sending settled, then every message due now, each sent once. */
  async pass(): Promise<LaterOutcome[]> {
    await this.settleStale().catch((err: unknown) =>
      this.log.warn({ err: words(err) }, "messages sent later: could not settle what a stopped process left"),
    );
    const out: LaterOutcome[] = [];
    const waiting = new Set<WorkspaceId>();
    for (let batch = 0; batch < 5; batch++) {
      const due = await Timers.dueAll<LaterMessage>(this.opts.db, LATER_KIND, this.now(), 50, [...waiting]);
      if (!due.length) break;
      for (const s of due) {
        if (waiting.has(s.workspace)) continue;
        const outcome = await this.runOne(s).catch((err) => {
          this.log.warn({ workspace: s.workspace, err: words(err) }, "message sent later failed");
          return "failed" as const;
        });
        if (outcome === "waiting") waiting.add(s.workspace);
        out.push(outcome);
      }
      if (due.length < 50) break;
    }
    return out;
  }

  /** Messages their process left `running` (it stopped while sending): unknown, never sent again; the writer told. */
  async settleStale(): Promise<number> {
    const running = await Timers.running<LaterMessage>(this.opts.db, LATER_KIND);
    if (running.length === 0) return 0;
    const live = await this.opts.liveWorkers?.().catch(() => undefined);
    const now = this.now().getTime();
    const before = now - (this.opts.staleMs ?? 10 * 60_000);
    const sent = now - (this.opts.sendMaxMs ?? 60_000);
    const stale = running.filter(
      (s) =>
        s.claimedBy !== this.workerId &&
        (s.updatedAt.getTime() < before ||
          (live !== undefined &&
            s.claimedBy !== undefined &&
            !live.has(s.claimedBy) &&
            s.updatedAt.getTime() < sent)),
    );
    for (const s of stale) {
      const moved = await laterSendsOf(this.opts.db, s.workspace).move(
        s.number,
        ["running"],
        "unknown",
        this.now(),
        {
          detail: "Switchboard stopped while sending it",
        },
      );
      if (!moved) continue;
      const ws = await this.opts.forWorkspace(s.workspace);
      if (ws) {
        await ws.core.audit(
          { userId: moved.setBy, via: moved.via },
          {
            command: laterLine(moved),
            operation: "message.later.unknown",
            ok: false,
            answer: answerOf(moved),
          },
        );
        await this.tell(ws, moved);
      }
    }
    return stale.length;
  }

  private async runOne(s: LaterSend): Promise<LaterOutcome> {
    const ws = await this.opts.forWorkspace(s.workspace);
    if (!ws) return "waiting";
    const store = laterSendsOf(this.opts.db, s.workspace);
    // The claim: of every process that read it as due, one moves it on — only as it was read (its version).
    const mine = await store.move(s.number, ["waiting"], "running", this.now(), {
      claimedBy: this.workerId,
      version: s.version,
    });
    if (!mine) return "taken";
    const actor = { userId: mine.setBy, via: mine.via };
    const body = mine.payload.body;
    let id: unknown;
    try {
      // The writer's send, through the core as it is now: who may write, the audited client (its sentence).
      const msg = await ws.core.perform(actor, { scope: "write", command: laterLine(mine) }, async (api) => {
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
      const unknown = err instanceof NetworkError && err.mayHaveReachedServer;
      const why = unknown
        ? "the messaging API did not answer; it may have been sent"
        : isApiError(err)
          ? `the messaging API refused it (${err.message})`
          : words(err);
      return this.finish(store, mine, ws, unknown ? "unknown" : "failed", why);
    }
    await store.move(mine.number, ["running"], "done", this.now());
    // Switchboard's own send: the inbox's thread shows it as the writer's (docs/inbox.md).
    if (typeof id === "number")
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
    const done = await store.move(
      s.number,
      ["running"],
      outcome === "unknown" ? "unknown" : "failed",
      this.now(),
      {
        detail: outcome === "window" ? WINDOW_CLOSED : detail,
      },
    );
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
    text = `Your message to ${whom} was not sent at ${when}: ${esc(s.detail ?? "it failed")}.`;
  }
  const blocks: KnownBlock[] = [section(text), ...(kept ? [section(kept)] : [])];
  if (buttons.length)
    blocks.push(
      actions(
        buttons.map((b) => ({
          text: b.text,
          actionId: ACTION.run,
          value: b.line,
          ...(b.style ? { style: b.style } : {}),
        })),
      ),
    );
  const plain = text.replace(/<!date\^[^|]*\|([^>]*)>/g, "$1");
  return { text: kept ? `${plain}\n${kept}` : plain, blocks };
}
