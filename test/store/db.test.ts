import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseUnavailableError, type Db, openDb, redactUrl } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openTestDb, postgresUrl, storeBackends } from "../helpers/db.ts";

describe.each(storeBackends())("Db on %s", (backend) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDb(backend);
    await db.exec("create table items (id serial primary key, name text not null unique, n int8)");
  });
  afterAll(async () => {
    await db.close();
  });

  it("says which backend it is", () => {
    expect(db.kind).toBe(backend);
  });

  it("runs parameterized queries and counts affected rows", async () => {
    const ins = await db.query("insert into items (name, n) values ($1, $2), ($3, $4)", ["q1", 1, "q2", 2]);
    expect(ins.rowCount).toBe(2);
    const sel = await db.query<{ name: string }>("select name from items where name like $1 order by name", [
      "q%",
    ]);
    expect(sel.rows.map((r) => r.name)).toEqual(["q1", "q2"]);
    const upd = await db.query("update items set n = n + 1 where name = $1", ["nobody"]);
    expect(upd.rowCount).toBe(0);
  });

  it("hands back the same JavaScript types on both backends", async () => {
    const { rows } = await db.query<Record<string, unknown>>(
      `select 42::int8 as small, 9007199254740993::int8 as huge, array[1, 2]::int8[] as arr,
              1.50::numeric as num, 2.5::float8 as f8, true as ok,
              '2024-03-01'::date as d, '2024-03-01 10:20:30.5'::timestamp as ts,
              '2024-03-01 10:20:30+02'::timestamptz as tstz, '1 day 02:00:00'::interval as iv,
              '{"a": [1]}'::jsonb as doc, '\\x0102'::bytea as bin, null::text as nothing`,
    );
    const r = rows[0]!;
    expect(r.small).toBe(42);
    expect(r.huge).toBe(9007199254740993n);
    expect(r.arr).toEqual([1, 2]);
    expect(r.num).toBe("1.50");
    expect(r.f8).toBe(2.5);
    expect(r.ok).toBe(true);
    expect(r.d).toEqual(new Date("2024-03-01T00:00:00Z"));
    expect(r.ts).toEqual(new Date("2024-03-01T10:20:30.500Z"));
    expect(r.tstz).toEqual(new Date("2024-03-01T08:20:30Z"));
    expect(r.iv).toBe("1 day 02:00:00");
    expect(r.doc).toEqual({ a: [1] });
    expect(Array.from(r.bin as Uint8Array)).toEqual([1, 2]);
    expect(r.nothing).toBeNull();
  });

  it("runs several statements with exec and returns one result per statement", async () => {
    const results = await db.exec("select 1 as a; select 'x' as b, 2 as c");
    expect(results.map((r) => r.rows)).toEqual([[{ a: 1 }], [{ b: "x", c: 2 }]]);
  });

  it("reports SQL errors with their SQLSTATE code", async () => {
    await db.query("insert into items (name) values ('dup')");
    const err = await db.query("insert into items (name) values ('dup')").catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "23505" });
  });

  it("commits a transaction", async () => {
    const id = await db.transaction(async (tx) => {
      const r = await tx.query<{ id: number }>("insert into items (name) values ('t-commit') returning id");
      await tx.exec("update items set n = 7 where name = 't-commit'; select 1");
      return r.rows[0]!.id;
    });
    const { rows } = await db.query("select n from items where id = $1", [id]);
    expect(rows).toEqual([{ n: 7 }]);
  });

  it("rolls a transaction back when its callback throws, and rethrows", async () => {
    const err = await db
      .transaction(async (tx) => {
        await tx.query("insert into items (name) values ('t-rollback')");
        throw new Error("changed my mind");
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe("changed my mind");
    const { rows } = await db.query("select 1 from items where name = 't-rollback'");
    expect(rows).toHaveLength(0);
  });

  it("rolls back a transaction whose SQL fails", async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query("insert into items (name) values ('t-sqlfail')");
        await tx.query("insert into items (name) values (null)");
      }),
    ).rejects.toMatchObject({ code: "23502" });
    expect((await db.query("select 1 from items where name = 't-sqlfail'")).rows).toHaveLength(0);
    // The connection is usable afterwards.
    expect((await db.query("select 1 as ok")).rows).toEqual([{ ok: 1 }]);
  });

  it("refuses db.query inside a transaction instead of waiting forever", async () => {
    const err = await db
      .transaction(async (tx) => {
        await tx.query("insert into items (name) values ('t-nested')");
        await db.query("select 1");
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/inside db\.transaction\(\): use the tx argument/);
    expect((await db.query("select 1 from items where name = 't-nested'")).rows).toHaveLength(0);
  });

  it("keeps queries issued during a transaction out of it", async () => {
    let issued!: () => void;
    const outsideIssued = new Promise<void>((resolve) => {
      issued = resolve;
    });
    const tx = db.transaction(async (t) => {
      await t.query("insert into items (name) values ('in-tx')");
      await outsideIssued;
      throw new Error("roll back");
    });
    const outside = db.query("insert into items (name) values ('outside-tx')");
    issued();
    await expect(tx).rejects.toThrow("roll back");
    await outside;
    const { rows } = await db.query<{ name: string }>(
      "select name from items where name in ('in-tx', 'outside-tx')",
    );
    expect(rows).toEqual([{ name: "outside-tx" }]);
  });

  it("runs many concurrent queries and transactions without losing any", async () => {
    await db.exec(
      "create table counter (k text primary key, v int not null); insert into counter values ('c', 0)",
    );
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      work.push(db.query("insert into items (name, n) values ($1, $2)", [`many-${i}`, i]));
      work.push(
        db.transaction(async (tx) => {
          const { rows } = await tx.query<{ v: number }>("select v from counter where k = 'c' for update");
          await tx.query("update counter set v = $1 where k = 'c'", [rows[0]!.v + 1]);
        }),
      );
    }
    await Promise.all(work);
    const count = await db.query<{ n: number }>("select count(*) as n from items where name like 'many-%'");
    expect(count.rows[0]!.n).toBe(40);
    const counter = await db.query<{ v: number }>("select v from counter");
    expect(counter.rows[0]!.v).toBe(40);
  });

  it("leaves no transaction open when a multi-statement exec fails half way", async () => {
    await expect(
      db.exec("begin; insert into items (name) values ('half-way'); select no_such_column; commit"),
    ).rejects.toThrow(/no_such_column/);
    // Not in an aborted transaction: the next statement runs, and the insert did not land.
    expect((await db.query("select 1 from items where name = 'half-way'")).rows).toHaveLength(0);
  });
});

describe.each(storeBackends())("closing a %s Db", (backend) => {
  it("finishes queued work, then refuses more with a clear error", async () => {
    const db = await openTestDb(backend);
    const pending = db.query<{ v: number }>("select 5 as v");
    await db.close();
    expect((await pending).rows).toEqual([{ v: 5 }]);
    await expect(db.query("select 1")).rejects.toThrow("the database is closed");
    await expect(db.transaction(async () => 1)).rejects.toThrow("the database is closed");
    await db.close(); // a second close is harmless
  });
});

describe("embedded database in a folder", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchboard-store-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The folder `name`, a database made in it and closed again. */
  async function usedFolder(name: string) {
    const dataDir = join(dir, name);
    await (await openDb({ dataDir })).close();
    return dataDir;
  }

  /** Opens the folder's database, checks that it answers, and closes it. */
  async function expectOpens(dataDir: string) {
    const db = await openDb({ dataDir });
    try {
      expect((await db.query("select 1 as ok")).rows).toEqual([{ ok: 1 }]);
    } finally {
      await db.close();
    }
  }

  it("keeps its data and migrations across a reopen", async () => {
    const set = {
      schema: "keep",
      migrations: [{ id: "001_notes", sql: "create table keep.notes (body text not null)" }],
    };
    const first = await openDb({ dataDir: join(dir, "data") });
    expect(await migrate(first, set)).toEqual(["001_notes"]);
    await first.query("insert into keep.notes values ($1)", ["survives a restart"]);
    await first.close();

    const second = await openDb({ dataDir: join(dir, "data") });
    try {
      expect(await migrate(second, set)).toEqual([]);
      expect((await second.query("select body from keep.notes")).rows).toEqual([
        { body: "survives a restart" },
      ]);
    } finally {
      await second.close();
    }
  });

  it("refuses a second opening of the same folder while the first is open", async () => {
    const dataDir = join(dir, "locked");
    const first = await openDb({ dataDir });
    try {
      const err = await openDb({ dataDir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseUnavailableError);
      expect((err as Error).message).toContain(`is in use by process ${process.pid}`);
      expect((await first.query("select 1 as ok")).rows).toEqual([{ ok: 1 }]);
    } finally {
      await first.close();
    }
    const again = await openDb({ dataDir });
    await again.close();
  });

  it("is not kept from starting by a lock naming a pid that another process has now (pid 1 after a container restart)", async () => {
    const dataDir = await usedFolder("reused-pid");
    // The lock file of earlier versions, left by a crash: pid 1 is alive, and is not Switchboard.
    writeFileSync(join(dataDir, "switchboard.lock"), "1");
    await expectOpens(dataDir);
  });

  it("takes over at once a lock nobody has touched for longer than its staleness", async () => {
    const dataDir = await usedFolder("stale");
    // What kill -9 leaves: the lock directory and its note, no heartbeat since.
    mkdirSync(join(dataDir, "switchboard.lock"));
    writeFileSync(join(dataDir, "switchboard.lock.json"), JSON.stringify({ pid: 1, host: "h", since: "x" }));
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(join(dataDir, "switchboard.lock"), aMinuteAgo, aMinuteAgo);
    await expectOpens(dataDir);
  });

  it("refuses a folder a live process holds, and opens it once that process was killed with -9", async () => {
    const dataDir = join(dir, "two-processes");
    const dbModule = fileURLToPath(new URL("../../src/store/db.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { openDb } = await import(${JSON.stringify(dbModule)});
         await openDb({ dataDir: ${JSON.stringify(dataDir)} });
         console.log("ready");
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
        child.on("exit", (code) => reject(new Error(`the holder exited with ${code}`)));
      });
      const err = await openDb({ dataDir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseUnavailableError);
      expect((err as Error).message).toContain(`is in use by process ${child.pid} on`);
    } finally {
      child.kill("SIGKILL");
    }
    await new Promise((resolve) => child.once("exit", resolve));
    await expectOpens(dataDir);
  }, 90_000);
});

describe("an unreachable PostgreSQL", () => {
  it("fails with a clear error that names the server but never the password", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const err = await openDb({
      databaseUrl: `postgres://bot:Sup3rS3cret@127.0.0.1:${port}/switchboard`,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    const message = (err as Error).message;
    expect(message).toContain(
      `cannot connect to PostgreSQL at postgres://bot:***@127.0.0.1:${port}/switchboard`,
    );
    expect(message).toMatch(/ECONNREFUSED/);
    expect(message).not.toContain("Sup3rS3cret");
  });

  it.runIf(postgresUrl())("refuses a wrong password without repeating it", async () => {
    const url = new URL(postgresUrl()!);
    url.password = "not-the-password-xyz";
    const err = await openDb({ databaseUrl: url.toString() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as Error).message).toMatch(/password authentication failed/);
    expect((err as Error).message).not.toContain("not-the-password-xyz");
  });
});

describe("redactUrl", () => {
  it("hides the password and secret-looking parameters, and keeps the rest", () => {
    expect(redactUrl("postgres://u:p%40ss@db.example:5432/app?sslmode=require&password=x")).toBe(
      "postgres://u:***@db.example:5432/app?sslmode=require&password=***",
    );
    expect(redactUrl("postgres://u@h/app")).toBe("postgres://u@h/app");
    expect(redactUrl("not a url u:pw@x")).toBe("not a url u:pw@x");
  });
});
