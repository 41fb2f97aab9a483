// kill -9 while a slash command was carried out (a `/sb report now` building
// its charts, a send waiting for the API): the person was acked and then never
// answered. Each command is noted in the store from the ack to the answer (a
// form's submission from before its claim, so no claim outlives its process
// untold: src/slack/forms/index.ts); the next start tells the people whose
// command a dead process left, on the command's response_url (good 30
// minutes), else by DM: at once on PGlite (one process per folder); on
// PostgreSQL as soon as the process that held it no longer beats
// (store/live-replicas.ts: keepAlive below), whichever replica runs.
import { randomUUID } from "node:crypto";
import type { webApi } from "@slack/bolt";
import { maskHookLine } from "../../automations/index.ts";
import type { WorkspaceId } from "../../domain/workspace.ts";
import {
  type CommandInFlight,
  type CommandNote,
  endCommands,
  noteCommands,
  takeInterruptedCommands,
} from "../../store/commands-in-flight.ts";
import type { Db } from "../../store/db.ts";
import { HEARTBEAT_MS, LIVE_MS, LiveReplicas } from "../../store/live-replicas.ts";
import type { TypedCommand, WorkspaceWork } from "../context.ts";
import { RESPONSE_URL_MS, respondTo } from "./confirm-notices.ts";

/** This process, as the owner of its commands' rows (and its heartbeat's: store/live-replicas.ts). */
export const PROCESS_ID = randomUUID();

/** Notes a command until the returned function is called (its answer given, or failed). */
export async function trackCommand(
  // The deployment's database: the embedded one's notes of every workspace are written together (notesBehind).
  deps: Pick<WorkspaceWork, "workspace" | "stores" | "logger"> & { db?: Db },
  typed: TypedCommand,
): Promise<() => Promise<void>> {
  // A hook's URL (`automation add … https://…`) is as good as a password: never stored as typed.
  const command = { ...typed, line: maskHookLine(typed.line) };
  const db = deps.db;
  if (!db) return async () => {};
  if (db.kind === "pglite") return notesBehind(db, deps.logger).started(deps.workspace, command);
  const rows = deps.stores?.commandsInFlight;
  if (!rows) return async () => {};
  const id = await rows.started({ owner: PROCESS_ID, ...command }).catch((err: unknown) => {
    deps.logger.warn({ err: (err as Error).message }, "could not note the command in flight");
    return undefined;
  });
  return async () => {
    if (id) await rows.ended(id).catch(() => {});
  };
}

/**
 * How long a command runs before the embedded database notes it. PGlite runs each statement on the
 * process's own thread, and a note and its removal cost two writes a command (~1.5 ms of CPU, during which
 * the next request waits for its ack). Most commands are answered sooner: they are never written. Those
 * still running are written together, in one statement; those answered after are removed together. The
 * price: a process killed within a command's first NOTE_AFTER_MS does not tell its person at the next start.
 * PostgreSQL notes each command at once (the statement waits on the network, not on this thread).
 */
export const NOTE_AFTER_MS = 100;

interface Behind {
  started(
    workspace: WorkspaceId,
    command: { userId: string; line: string; responseUrl?: string },
  ): () => Promise<void>;
}

const behind = new WeakMap<Db, Behind>();

function notesBehind(db: Db, logger: WorkspaceWork["logger"]): Behind {
  const known = behind.get(db);
  if (known) return known;
  /** Started, not yet written. */
  const pending = new Map<string, CommandNote>();
  /** Written (or being written), not yet answered. */
  const written = new Map<string, WorkspaceId>();
  /** Answered after being written: their notes to remove. */
  let answered: Array<{ id: string; workspace: WorkspaceId }> = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    timer = undefined;
    // Only commands that have run NOTE_AFTER_MS are written; younger ones wait for their turn (oldest first).
    const due = Date.now() - NOTE_AFTER_MS;
    const notes: CommandNote[] = [];
    for (const n of pending.values()) {
      if (n.startedAt.getTime() > due) break;
      notes.push(n);
    }
    for (const n of notes) {
      pending.delete(n.id);
      written.set(n.id, n.workspace);
    }
    const oldest = pending.values().next().value as CommandNote | undefined;
    if (oldest) schedule(oldest.startedAt.getTime() + NOTE_AFTER_MS - Date.now());
    if (notes.length === 0 && answered.length === 0) return writing;
    writing = writing
      .then(async () => {
        await noteCommands(db, notes).catch((err: unknown) =>
          logger.warn({ err: (err as Error).message }, "could not note the commands in flight"),
        );
        const ended = answered;
        answered = [];
        await endCommands(db, ended).catch(() => {});
      })
      .catch(() => {});
    return writing;
  };
  function schedule(inMs: number = NOTE_AFTER_MS): void {
    timer ??= setTimeout(() => void flush(), Math.max(0, inMs));
    timer.unref();
  }
  const b: Behind = {
    started(workspace, command) {
      const id = randomUUID();
      pending.set(id, { id, workspace, owner: PROCESS_ID, startedAt: new Date(), ...command });
      schedule();
      return async () => {
        if (pending.delete(id)) return;
        const ws = written.get(id);
        if (ws === undefined) return;
        written.delete(id);
        answered.push({ id, workspace: ws });
        schedule();
      };
    },
  };
  behind.set(db, b);
  return b;
}

/** A form's submission as a row of commands in flight: its title after a marker no typed line starts with. */
const FORM = "\u001eform:";
export const formLine = (title: string): string => `${FORM}${title}`;

export function interruptedText(line: string): string {
  if (line.startsWith(FORM)) {
    const title = line
      .slice(FORM.length)
      .replace(/[*_~`]/g, "")
      .slice(0, 100);
    return `Switchboard restarted while doing the work of the form *${title}* you submitted, before it could answer. A change may or may not have been made: check before submitting it again.`;
  }
  const shown = line.replace(/`/g, "'").slice(0, 200);
  return `Switchboard restarted while carrying out \`/sb ${shown}\` for you, before it could answer. A report or a list can simply be asked for again; a change may or may not have been made: check before running it again.`;
}

/**
 * Which rows are another's live command: on PGlite none (one process per
 * folder: every other owner is dead); on PostgreSQL those of a replica seen
 * beating within LIVE_MS (store/live-replicas.ts).
 */
const livePolicy = (kind: Db["kind"]) => (kind === "pglite" ? undefined : LIVE_MS);

/**
 * The deployment's sweeps (every workspace's orphaned commands, this replica's heartbeat): cross-workspace
 * runners, so they hold the database itself, which no workspace's work does.
 */
type Deps = Pick<WorkspaceWork, "posts" | "logger"> & { db?: Db };

/** Tells the people of the workspace whose commands a stopped process left unanswered; returns how many. */
export async function tellInterruptedCommands(
  deps: WorkspaceWork,
  client: webApi.WebClient,
  opts: { self?: string; olderThanMs?: number; liveWithinMs?: number; now?: () => number } = {},
): Promise<number> {
  const kind = deps.database;
  const rows = deps.stores?.commandsInFlight;
  if (!kind || !rows) return 0;
  const taken = await rows.takeInterrupted(
    opts.self ?? PROCESS_ID,
    opts.olderThanMs ?? 0,
    "liveWithinMs" in opts ? opts.liveWithinMs : livePolicy(kind),
  );
  return tellTaken(deps, () => client, taken, opts.now);
}

/**
 * Every workspace's commands left by processes no longer running (a workspace
 * not connected, whose start-up settling does not visit it, too), each told
 * with its workspace's bot client when its response_url is too old; returns how many.
 */
export async function tellOrphanedCommands(
  deps: Deps,
  clientOf: (workspace: WorkspaceId) => webApi.WebClient | undefined,
  opts: { self?: string; now?: () => number } = {},
): Promise<number> {
  const db = deps.db;
  if (!db) return 0;
  const taken = await takeInterruptedCommands(db, opts.self ?? PROCESS_ID, 0, livePolicy(db.kind));
  let told = 0;
  for (const c of taken) told += await tellTaken(deps, () => clientOf(c.workspace), [c], opts.now);
  return told;
}

async function tellTaken(
  deps: Deps,
  clientOf: () => webApi.WebClient | undefined,
  taken: CommandInFlight[],
  now: () => number = Date.now,
): Promise<number> {
  let told = 0;
  for (const c of taken) {
    const message = {
      response_type: "ephemeral" as const,
      replace_original: false,
      text: interruptedText(c.line),
    };
    try {
      if (c.responseUrl && now() - c.startedAt.getTime() < RESPONSE_URL_MS)
        await respondTo(c.responseUrl)(message);
      else {
        const client = clientOf();
        if (!client) throw new Error("no bot client for the workspace");
        await deps.posts.post(client, { channel: c.userId, text: message.text });
      }
      told++;
    } catch (err) {
      deps.logger.warn(
        { err: (err as Error).message, workspace: c.workspace },
        "could not tell about a command an earlier process left",
      );
    }
  }
  return told;
}

/**
 * PostgreSQL: this replica's heartbeat (store/live-replicas.ts), written now
 * and every HEARTBEAT_MS; each beat also tells the commands of replicas that
 * stopped beating (`sweep`), so a killed replica's people hear within
 * LIVE_MS + HEARTBEAT_MS, whoever runs. PGlite: nothing (start-up settles all).
 */
export async function keepAlive(
  deps: Deps,
  sweep: () => Promise<unknown>,
  opts: { everyMs?: number } = {},
): Promise<{ stop(): Promise<void> }> {
  const db = deps.db;
  if (db?.kind !== "postgres") return { stop: async () => {} };
  const live = new LiveReplicas(db);
  await live
    .beat(PROCESS_ID)
    .catch((err: unknown) =>
      deps.logger.warn({ err: String(err) }, "could not write this replica's heartbeat"),
    );
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void live
      .beat(PROCESS_ID)
      .then(sweep)
      .catch((err: unknown) =>
        deps.logger.warn(
          { err: String(err) },
          "heartbeat: could not beat or settle a stopped replica's commands",
        ),
      )
      .finally(() => {
        running = false;
      });
  }, opts.everyMs ?? HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await live.gone(PROCESS_ID).catch(() => {});
    },
  };
}
