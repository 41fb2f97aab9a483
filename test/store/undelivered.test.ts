// Outcomes kept for a person (store/undelivered.ts): taken once, oldest first;
// on the embedded database (one process) who has something kept is known in
// memory, so the next command of someone with nothing kept reads nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/store/db.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { UndeliveredOutcomes } from "../../src/store/undelivered.ts";
import { openTestDb, recordingQueries, storeBackends } from "../helpers/db.ts";

describe.each(storeBackends())("kept outcomes on %s", (backend) => {
  let db: Db;
  const sql: string[] = [];
  beforeAll(async () => {
    const opened = await openTestDb(backend);
    await migrateStore(opened);
    db = recordingQueries(opened, sql);
  }, 60_000);
  afterAll(() => db?.close());

  it("are taken once, oldest first, per workspace and person", async () => {
    const a = new UndeliveredOutcomes(db, "TA");
    const b = new UndeliveredOutcomes(db, "TB");
    await a.keep("U1", "first");
    await a.keep("U1", "second");
    await b.keep("U1", "other workspace");
    expect((await a.take("U1")).map((o) => o.text)).toEqual(["first", "second"]);
    expect(await a.take("U1")).toEqual([]);
    expect((await b.take("U1")).map((o) => o.text)).toEqual(["other workspace"]);
    await a.restore("U2", [{ text: "put back", at: new Date() }]);
    expect((await new UndeliveredOutcomes(db, "TA").take("U2")).map((o) => o.text)).toEqual(["put back"]);
  });

  it("cost a person with nothing kept no statement on the embedded database, one on PostgreSQL", async () => {
    const store = new UndeliveredOutcomes(db, "TA");
    await store.take("U9");
    sql.length = 0;
    expect(await store.take("U9")).toEqual([]);
    expect(await new UndeliveredOutcomes(db, "TC").take("U9")).toEqual([]);
    expect(sql).toHaveLength(backend === "pglite" ? 0 : 2);
  });
});
