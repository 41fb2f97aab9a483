import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ImportContact } from "../src/store/sandbox/rows.ts";
import { type BenchRow, runBenchChild } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const SEARCHES = 200;
const UNINDEXED_SEARCHES = 20;
// Far above any loop here: the sandbox's per-key budgets and the client's must not pace the runs.
const NO_LIMIT = 1_000_000_000;

const FIRST = [
  "Ana",
  "Bruno",
  "Carla",
  "Diego",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Keiko",
  "Liam",
  "Maria",
  "Nadia",
  "Omar",
  "Priya",
  "Quentin",
  "Rosa",
  "Samir",
  "Tomas",
  "Uma",
  "Victor",
  "Wen",
  "Ximena",
  "Yusuf",
  "Zoe",
];
const LAST = [
  "Silva",
  "Garcia",
  "Nguyen",
  "Smith",
  "Kowalski",
  "Okafor",
  "Tanaka",
  "Müller",
  "Rossi",
  "Haddad",
  "Johansson",
  "Petrov",
  "Dubois",
  "Kim",
  "Martins",
  "Novak",
  "Oliveira",
  "Schmidt",
  "Yilmaz",
  "Costa",
  "Fischer",
  "Moreau",
  "Ivanova",
  "Sato",
  "Lopez",
  "Andersen",
  "Ramos",
  "Weber",
  "Santos",
  "Cohen",
];
const DOMAINS = ["gmail.com", "outlook.com", "example.org", "acme.io", "mail.de"];
// Not 415: the seed's contacts use +1415555 02NN.
const AREAS = ["212", "305", "312", "646", "718", "617", "503", "206"];

interface Person {
  phone: string;
  first_name: string;
  last_name: string;
  email: string;
}

/** Contact i of the file: every phone different, names and e-mail domains drawn from short lists. */
function person(i: number): Person {
  const first = FIRST[(i * 7) % FIRST.length]!;
  const last = LAST[(i * 11 + Math.floor(i / 3)) % LAST.length]!;
  const area = AREAS[i % AREAS.length]!;
  const n = Math.floor(i / AREAS.length);
  const phone = `+1${area}${200 + (Math.floor(n / 10_000) % 700)}${String(n % 10_000).padStart(4, "0")}`;
  // Addresses in ASCII: Müller writes mueller.
  const email = `${first}.${last.replace("ü", "ue")}${i}@${DOMAINS[i % DOMAINS.length]}`.toLowerCase();
  return { phone, first_name: first, last_name: last, email };
}

async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((resolve) => out.once("drain", () => resolve()));
  await write("phone,first_name,last_name,email\r\n");
  let batch = "";
  for (let i = 0; i < rows; i++) {
    const p = person(i);
    batch += `${p.phone},${p.first_name},${p.last_name},${p.email}\r\n`;
    if (batch.length > 256 * 1024) {
      await write(batch);
      batch = "";
    }
  }
  await write(batch);
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}

/** Search terms as people type them: name fragments, phone digits (some with spaces), e-mail parts. */
function searchTerms(rows: number, count: number): string[] {
  let seed = 42;
  const random = () => {
    // A fixed LCG: the same terms on every run.
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const terms: string[] = [];
  for (let k = 0; k < count; k++) {
    const p = person(Math.floor(random() * rows));
    switch (k % 6) {
      case 0: {
        const name = pick([...FIRST, ...LAST]).toLowerCase();
        const start = Math.floor(random() * Math.max(1, name.length - 3));
        terms.push(name.slice(start, start + 3 + Math.floor(random() * 2)));
        break;
      }
      case 1:
        terms.push(`${p.first_name} ${p.last_name}`);
        break;
      case 2: {
        const start = 2 + Math.floor(random() * 5);
        terms.push(p.phone.slice(start, start + 4 + Math.floor(random() * 4)));
        break;
      }
      case 3:
        // As written in an address book: "(212) 555-0142" style digits with spaces.
        terms.push(`${p.phone.slice(2, 5)} ${p.phone.slice(5, 8)} ${p.phone.slice(8)}`);
        break;
      case 4:
        terms.push(p.email.split("@")[0]!);
        break;
      default:
        terms.push(`@${pick(DOMAINS)}`);
    }
  }
  return terms;
}

// ---------------------------------------------------------------- children

interface ChildResult {
  figures: Record<string, number>;
  peaks: Record<string, number>;
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

/**
 * The largest resident size seen every 10 ms while `fn` runs. maxRSS only
 * rises, and PGlite's start (its initdb in WebAssembly) sets it above 1 GB
 * before any work: this shows what the work itself holds.
 */
async function sampledRssMb<T>(fn: () => Promise<T>): Promise<{ value: T; before: number; max: number }> {
  const before = process.memoryUsage.rss() / 1024 / 1024;
  let max = before;
  const timer = setInterval(() => {
    max = Math.max(max, process.memoryUsage.rss() / 1024 / 1024);
  }, 10);
  try {
    const value = await fn();
    return { value, before, max: Math.max(max, process.memoryUsage.rss() / 1024 / 1024) };
  } finally {
    clearInterval(timer);
  }
}

async function childCsvParse(file: string): Promise<ChildResult> {
  const { parse } = await import("csv-parse");
  const started = performance.now();
  let rows = -1; // the header
  for await (const _ of createReadStream(file).pipe(parse({ bom: true, relax_column_count: true }))) rows++;
  return { figures: { rows, ms: performance.now() - started }, peaks: { parse: peakRssMb() } };
}

async function childImport(file: string, rows: number): Promise<ChildResult> {
  const { startSandbox } = await import("../src/sandbox/index.ts");
  const { MessagingClient } = await import("../src/api/client.ts");
  const sandbox = await startSandbox({ readLimit: NO_LIMIT, writeLimit: NO_LIMIT, campaignTickMs: 0 });
  const startPeak = peakRssMb();
  const client = new MessagingClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    timeoutMs: 600_000,
    writePerMinute: NO_LIMIT,
  });
  try {
    const started = performance.now();
    const sampled = await sampledRssMb(() =>
      client.importContacts(
        { filename: "contacts.csv", contentType: "text/csv", body: createReadStream(file) },
        { updateExisting: false },
      ),
    );
    const ms = performance.now() - started;
    const result = sampled.value;
    if (result.created !== rows || result.errors?.length) {
      throw new Error(
        `import created ${result.created} of ${rows} rows, ${result.errors?.length ?? 0} errors`,
      );
    }
    return {
      figures: { rows: result.created, ms },
      peaks: { start: startPeak, import: peakRssMb(), rssBefore: sampled.before, rssMax: sampled.max },
    };
  } finally {
    await client.close();
    await sandbox.close();
  }
}

async function childSearch(file: string, rows: number): Promise<ChildResult> {
  const { parse } = await import("csv-parse");
  const { startSandbox } = await import("../src/sandbox/index.ts");
  const { MessagingClient } = await import("../src/api/client.ts");
  const { SandboxStore } = await import("../src/store/sandbox/store.ts");

  const sandbox = await startSandbox({ readLimit: NO_LIMIT, writeLimit: NO_LIMIT, campaignTickMs: 0 });
  const client = new MessagingClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    readPerMinute: NO_LIMIT,
  });
  const store = new SandboxStore(sandbox.db, () => new Date()).forOrg(sandbox.orgId);
  try {
    // Read before the clock starts: the baseline is the SQL alone.
    const people: ImportContact[] = [];
    for await (const r of createReadStream(file).pipe(parse({ columns: true }))) {
      people.push({ ...(r as Person), custom_fields: {} });
    }
    const started = performance.now();
    let created = 0;
    // As the import writes: 2,000 rows a statement, one transaction, then fresh statistics.
    await sandbox.db.transaction(async (tx) => {
      for (let i = 0; i < people.length; i += 2000) {
        created += (
          await store.contacts.importBatch(tx, people.slice(i, i + 2000), { updateExisting: false })
        ).created;
      }
    });
    await store.contacts.analyze();
    const insertMs = performance.now() - started;
    if (created !== rows) throw new Error(`store insert created ${created} of ${rows} rows`);
    const insertPeak = peakRssMb();
    people.length = 0;

    const terms = searchTerms(rows, SEARCHES);
    const viaStore = (search: string) => store.contacts.list({ search, page: 1, limit: 20 });
    const viaClient = (search: string) => client.listContacts({ search });
    for (const term of terms.slice(0, 20)) {
      await viaStore(term);
      await viaClient(term);
    }
    // Interleaved, so load from elsewhere on the machine falls on both alike.
    const httpMs: number[] = [];
    const sqlMs: number[] = [];
    let hits = 0;
    const sampled = await sampledRssMb(async () => {
      for (const term of terms) {
        let t = performance.now();
        const page = await viaClient(term);
        httpMs.push(performance.now() - t);
        t = performance.now();
        const direct = await viaStore(term);
        sqlMs.push(performance.now() - t);
        if (page.total !== direct.total) {
          throw new Error(`"${term}": ${page.total} over HTTP, ${direct.total} in SQL`);
        }
        hits += direct.total;
      }
    });
    const searchPeak = peakRssMb();

    // The same SQL without the trigram index: what the index is worth.
    const indexed = await sandbox.db.query<{ n: number }>(
      "select count(*)::int as n from pg_indexes where schemaname = 'sandbox' and indexname = 'contacts_search_trgm'",
    );
    const hasIndex = indexed.rows[0]?.n === 1;
    const unindexedMs: number[] = [];
    const indexedMs: number[] = [];
    if (hasIndex) {
      const sample = terms.slice(0, UNINDEXED_SEARCHES);
      for (const term of sample) {
        const t = performance.now();
        await viaStore(term);
        indexedMs.push(performance.now() - t);
      }
      await sandbox.db.exec("drop index sandbox.contacts_search_trgm");
      await store.contacts.analyze();
      for (const term of sample) {
        const t = performance.now();
        await viaStore(term);
        unindexedMs.push(performance.now() - t);
      }
    }
    return {
      figures: {
        insertMs,
        rows: created,
        httpP50: percentile(httpMs, 50),
        httpP99: percentile(httpMs, 99),
        sqlP50: percentile(sqlMs, 50),
        sqlP99: percentile(sqlMs, 99),
        meanHits: hits / terms.length,
        indexedP50: hasIndex ? percentile(indexedMs, 50) : Number.NaN,
        unindexedP50: hasIndex ? percentile(unindexedMs, 50) : Number.NaN,
      },
      peaks: {
        insert: insertPeak,
        search: searchPeak,
        unindexed: peakRssMb(),
        rssBefore: sampled.before,
        rssMax: sampled.max,
      },
    };
  } finally {
    await client.close();
    await sandbox.close();
  }
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

// ---------------------------------------------------------------- parent side

function runChild(mode: string, file: string, rows: number): Promise<ChildResult> {
  return runBenchChild<ChildResult>(fileURLToPath(import.meta.url), ["--child", mode, file, String(rows)]);
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;

export async function run(rows = 100_000): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "sandbox-bench-"));
  try {
    const file = join(dir, "contacts.csv");
    await writeCsv(file, rows);
    const mb = ((await stat(file)).size / 1024 / 1024).toFixed(1);
    const n = rows.toLocaleString("en-US");
    const bare = await runChild("csv-parse", file, rows);
    const imported = await runChild("import", file, rows);
    const search = await runChild("search", file, rows);
    const perSecond = (rowCount: number, ms: number) => Math.round(rowCount / (ms / 1000));
    const importRate = perSecond(imported.figures.rows!, imported.figures.ms!);
    const f = search.figures;
    const out: BenchRow[] = [
      {
        name: `import of a ${n}-row CSV (${mb} MB): streamed by MessagingClient to POST /contacts/import, sandbox and in-memory PGlite in one process; peak RSS ${round1(imported.peaks.start!)} MB already at PGlite's start, RSS ${round1(imported.peaks.rssBefore!)} MB before the import and at most ${round1(imported.peaks.rssMax!)} MB during it (baseline: bare csv-parse over the file, peak RSS ${round1(bare.peaks.parse!)} MB)`,
        figure: importRate,
        unit: "rows/s",
        baseline: perSecond(bare.figures.rows!, bare.figures.ms!),
        peakRssMb: round1(imported.peaks.import!),
      },
      {
        name: `import of the ${n} rows (baseline: the same rows by the store's batch insert, 2,000 a statement in one transaction + ANALYZE, no HTTP/CSV/validation; peak RSS ${round1(search.peaks.insert!)} MB with all rows held in memory)`,
        figure: importRate,
        unit: "rows/s",
        baseline: perSecond(f.rows!, f.insertMs!),
        peakRssMb: round1(imported.peaks.import!),
      },
      {
        name: `GET /contacts?search= over ${n} contacts, p50 of ${SEARCHES} varied terms (names, phone digits, e-mail parts; ${Math.round(f.meanHits!)} matches on average), through MessagingClient; RSS ${round1(search.peaks.rssBefore!)} MB before, at most ${round1(search.peaks.rssMax!)} MB during (baseline: the same store call, same SQL, no HTTP)`,
        figure: round2(f.httpP50!),
        unit: "ms",
        baseline: round2(f.sqlP50!),
        peakRssMb: round1(search.peaks.search!),
      },
      {
        name: "GET /contacts?search=, p99 through MessagingClient (baseline: the same SQL, no HTTP)",
        figure: round2(f.httpP99!),
        unit: "ms",
        baseline: round2(f.sqlP99!),
        peakRssMb: round1(search.peaks.search!),
      },
    ];
    if (!Number.isNaN(f.unindexedP50)) {
      out.push({
        name: `contact search SQL, p50 of ${UNINDEXED_SEARCHES} terms: with the pg_trgm index (baseline: the index dropped, a scan of the table)`,
        figure: round2(f.indexedP50!),
        unit: "ms",
        baseline: round2(f.unindexedP50!),
        peakRssMb: round1(search.peaks.unindexed!),
      });
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, async ([flag, mode, file, rows]) => {
  if (flag !== "--child") return run(flag ? Number(flag) : undefined);
  const result =
    mode === "csv-parse"
      ? await childCsvParse(file!)
      : mode === "import"
        ? await childImport(file!, Number(rows))
        : await childSearch(file!, Number(rows));
  process.stdout.write(`${JSON.stringify(result)}\n`);
});
