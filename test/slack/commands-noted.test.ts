// Commands in flight on the embedded database (recovery/interrupted-commands.ts):
// a command answered within NOTE_AFTER_MS costs no statement; one still running
// is noted (with its own start time), found by the next start, and its note
// removed once answered. On PostgreSQL each is noted at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/platform/log.ts";
import { NOTE_AFTER_MS, trackCommand } from "../../src/slack/recovery/interrupted-commands.ts";
import { takeInterruptedCommands } from "../../src/store/commands-in-flight.ts";
import type { Db } from "../../src/store/db.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { openTestDb, recordingQueries, storeBackends } from "../helpers/db.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls until `ok` (a busy machine may fire the note's timer late). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 200 && !ok(v); i++) {
    await sleep(50);
    v = await read();
  }
  return v;
}

describe.each(storeBackends())("commands in flight on %s", (backend) => {
  let db: Db;
  const writes: string[] = [];
  beforeAll(async () => {
    const opened = await openTestDb(backend);
    await migrateStore(opened);
    db = recordingQueries(opened, writes, /commands_in_flight/);
  }, 60_000);
  afterAll(() => db?.close());
  const deps = (): Parameters<typeof trackCommand>[0] => ({
    db,
    workspace: "TA",
    stores: new WorkspaceStores(db, "TA"),
    logger: createLogger("silent"),
  });
  const rows = async () =>
    (
      await db.query<{ line: string; started_at: Date }>(
        "select line, started_at from switchboard.commands_in_flight",
      )
    ).rows;

  it("a command answered at once", async () => {
    writes.length = 0;
    const done = await trackCommand(deps(), { userId: "U1", line: "help" });
    await done();
    await sleep(NOTE_AFTER_MS * 3);
    expect(writes).toHaveLength(backend === "pglite" ? 0 : 2);
    expect(await rows()).toEqual([]);
  });

  it("a command still running is noted with its start, told by the next start, and removed once answered", async () => {
    const before = Date.now();
    const done = await trackCommand(deps(), { userId: "U1", line: "report now 1" });
    const noted = await until(rows, (r) => r.length > 0);
    expect(noted.map((r) => r.line)).toEqual(["report now 1"]);
    expect(new Date(noted[0]!.started_at).getTime()).toBeLessThan(before + NOTE_AFTER_MS);
    await done();
    expect(await until(rows, (r) => r.length === 0)).toEqual([]);
    // Killed while running: the next process takes it, once.
    await trackCommand(deps(), { userId: "U2", line: "tag add x" });
    await until(rows, (r) => r.length > 0);
    const taken = await takeInterruptedCommands(db, "the next process", 0);
    expect(taken.map((c) => [c.workspace, c.userId, c.line])).toEqual([["TA", "U2", "tag add x"]]);
    expect(await takeInterruptedCommands(db, "the next process", 0)).toEqual([]);
  });
  it.skipIf(backend !== "pglite")(
    "a command answered within the note's delay is never written, while a slower one beside it is",
    async () => {
      const lines: string[] = [];
      const query = db.query.bind(db);
      const spied = Object.assign(Object.create(db) as Db, {
        kind: db.kind,
        query: ((text: string, params?: unknown[]) => {
          if (/insert into switchboard.commands_in_flight/.test(text))
            lines.push(...((params?.[3] as string[]) ?? []));
          return query(text, params);
        }) as Db["query"],
      });
      const spiedDeps = () =>
        ({
          db: spied,
          workspace: "TA",
          stores: new WorkspaceStores(spied, "TA"),
          logger: createLogger("silent"),
        }) as Parameters<typeof trackCommand>[0];
      const slow = await trackCommand(spiedDeps(), { userId: "U3", line: "report now 2" });
      // A quick command starts just before the slow one's note is written, and is answered just after.
      await sleep(NOTE_AFTER_MS - 10);
      const t0 = performance.now();
      const quick = await trackCommand(spiedDeps(), { userId: "U4", line: "help" });
      await until(rows, (r) => r.some((x) => x.line === "report now 2"));
      await quick();
      // A loaded machine may stretch it past the note's delay: then it may be written.
      const overdue = performance.now() - t0 >= NOTE_AFTER_MS;
      await slow();
      await until(rows, (r) => r.length === 0);
      expect(lines).toContain("report now 2");
      if (!overdue) expect(lines).not.toContain("help");
    },
  );
});
