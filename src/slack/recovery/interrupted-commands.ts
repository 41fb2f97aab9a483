// kill -9 while a slash command was carried out (a `/sb report now` building
// its charts, a send waiting for the API): the person was acked and then never
// answered. Each command is noted in the store from the ack to the answer; the
// next start tells the people whose command a dead process left, on the
// command's response_url (good 30 minutes), else by DM.
import { randomUUID } from "node:crypto";
import type { webApi } from "@slack/bolt";
import { CommandsInFlight } from "../../store/commands-in-flight.ts";
import type { WorkspaceWork } from "../context.ts";
import { RESPONSE_URL_MS, respondTo } from "./confirm-notices.ts";

/** This process, as the owner of its commands' rows. */
export const PROCESS_ID = randomUUID();

/** With several processes on PostgreSQL, a row is another's live command until it is this old. */
export const REPLICA_COMMAND_MS = 3 * 60_000;

/** Notes a command until the returned function is called (its answer given, or failed). */
export async function trackCommand(
  deps: WorkspaceWork,
  command: { userId: string; line: string; responseUrl?: string },
): Promise<() => Promise<void>> {
  const db = deps.db;
  if (!db) return async () => {};
  const rows = new CommandsInFlight(db, deps.workspace);
  const id = await rows.started({ owner: PROCESS_ID, ...command }).catch((err: unknown) => {
    deps.logger.warn({ err: (err as Error).message }, "could not note the command in flight");
    return undefined;
  });
  return async () => {
    if (id) await rows.ended(id).catch(() => {});
  };
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

/** Tells the people of the workspace whose commands a stopped process left unanswered; returns how many. */
export async function tellInterruptedCommands(
  deps: WorkspaceWork,
  client: webApi.WebClient,
  opts: { self?: string; olderThanMs?: number; now?: () => number } = {},
): Promise<number> {
  const db = deps.db;
  if (!db) return 0;
  // One process per folder on PGlite: every other owner is dead. On PostgreSQL a replica may still run it.
  const olderThanMs = opts.olderThanMs ?? (db.kind === "pglite" ? 0 : REPLICA_COMMAND_MS);
  const now = opts.now ?? Date.now;
  let told = 0;
  const rows = new CommandsInFlight(db, deps.workspace);
  for (const c of await rows.takeInterrupted(opts.self ?? PROCESS_ID, olderThanMs)) {
    const message = {
      response_type: "ephemeral" as const,
      replace_original: false,
      text: interruptedText(c.line),
    };
    try {
      if (c.responseUrl && now() - c.startedAt.getTime() < RESPONSE_URL_MS)
        await respondTo(c.responseUrl)(message);
      else await deps.posts.post(client, { channel: c.userId, text: message.text });
      told++;
    } catch (err) {
      deps.logger.warn(
        { err: (err as Error).message },
        "could not tell about a command an earlier process left",
      );
    }
  }
  return told;
}
