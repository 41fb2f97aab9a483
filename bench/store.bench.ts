// Store benchmark: 10,000 inserts through the store's Db, one statement per
// row (each its own transaction) against one batched statement (arrays
// unnested server-side), on the embedded PGlite (on disk, as DATA_DIR is) and,
// when DATABASE_URL is set, on PostgreSQL over loopback.
//
//   node bench/store.bench.ts [rows]   prints the rows
//   run() from bench/run.ts               returns them
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDb } from "../src/store/db.ts";
import { type BenchRow, peakRssMb } from "./run.ts";
import { runWhenMain } from "./setup.ts";

async function measure(db: Db, rows: number): Promise<{ oneByOne: number; batched: number }> {
  const table = `bench_inserts_${randomBytes(4).toString("hex")}`;
  await db.exec(`create table ${table} (id int primary key, name text not null, at timestamptz not null)`);
  try {
    const names = Array.from({ length: rows }, (_, i) => `contact ${i}`);
    const now = new Date();

    let started = performance.now();
    for (let i = 0; i < rows; i++) {
      await db.query(`insert into ${table} (id, name, at) values ($1, $2, $3)`, [i, names[i], now]);
    }
    const oneByOne = rows / ((performance.now() - started) / 1000);
    await db.exec(`truncate ${table}`);

    started = performance.now();
    await db.query(
      `insert into ${table} (id, name, at) select id, name, $3 from unnest($1::int[], $2::text[]) as t(id, name)`,
      [names.map((_, i) => i), names, now],
    );
    const batched = rows / ((performance.now() - started) / 1000);

    const { rows: count } = await db.query<{ n: number }>(`select count(*) as n from ${table}`);
    if (count[0]?.n !== rows) throw new Error(`expected ${rows} rows, found ${count[0]?.n}`);
    return { oneByOne, batched };
  } finally {
    await db.exec(`drop table ${table}`);
  }
}

export async function run(rows = 10_000): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "switchboard-bench-store-"));
  const out: BenchRow[] = [];
  const round = (n: number) => Math.round(n);
  try {
    const lite = await openDb({ dataDir: join(dir, "data") });
    let liteFigures: { oneByOne: number; batched: number };
    try {
      liteFigures = await measure(lite, rows);
    } finally {
      await lite.close();
    }
    out.push({
      name: `${rows.toLocaleString("en-US")} inserts, PGlite on disk: one batched statement (baseline: one statement per row)`,
      figure: round(liteFigures.batched),
      unit: "rows/s",
      baseline: round(liteFigures.oneByOne),
      peakRssMb: peakRssMb(),
    });

    const url = process.env.DATABASE_URL?.trim();
    if (url) {
      const pg = await openDb({ databaseUrl: url });
      try {
        const pgFigures = await measure(pg, rows);
        out.push({
          name: `${rows.toLocaleString("en-US")} inserts, PostgreSQL on loopback: one batched statement (baseline: one statement per row)`,
          figure: round(pgFigures.batched),
          unit: "rows/s",
          baseline: round(pgFigures.oneByOne),
          peakRssMb: peakRssMb(),
        });
        out.push({
          name: "one statement per row: PGlite (baseline: PostgreSQL on loopback)",
          figure: round(liteFigures.oneByOne),
          unit: "rows/s",
          baseline: round(pgFigures.oneByOne),
          peakRssMb: peakRssMb(),
        });
      } finally {
        await pg.close();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

runWhenMain(import.meta.url, ([rows]) => run(Number(rows ?? 10_000)));
