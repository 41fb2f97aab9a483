// Several replicas of the real process (spawned, `node src/start.js`, single
// mode) on one PostgreSQL (DATABASE_URL) with one API key, against the
// sandbox holding that key to the spec's budget (300 reads, 60 writes a
// minute: 429 beyond it). One, two and three replicas in turn, each run
// BENCH_REPLICAS_SECONDS (30) of mixed load spread round-robin over the
// replicas: 50 signed slash commands a second in all (about 4 a second read
// the API, `tags`; one a second writes, `tag add` with a name of its own;
// the rest `help`), and one `report now` a run. Figures: the API's 429s
// (goal 0, from each replica's /metrics), the acks' and the answers' p99
// beside one replica's, the writes done once (tags created = tags asked), and
// the shared budget's cost (the API time of a request through it).
// Needs DATABASE_URL (a database of its own: it is written to); without it the
// module says so and measures nothing. Run alone: `node bench/replicas.bench.ts`.
import { pathToFileURL } from "node:url";
import { MessagingClient } from "../src/api/client.ts";
import { startSandbox } from "../src/sandbox/index.ts";
import { FakeSlack } from "../test/fakes/slack.ts";
import { SlackRequests } from "../test/fakes/slack-requests.ts";
import { APP_ARGS, cleanEnv, type Launched, launch, percentile, SIGNING_SECRET } from "./processes.ts";
import { type BenchRow, peakRssMb } from "./run.ts";

const RATE = 50;
const READS_EVERY = 12; // one command in 12 reads the API: ~4.2 a second, 250 a minute (< 300)
const WRITES_EVERY = 50; // one in 50 writes: 1 a second, 60 a minute (the whole write budget: refused ones wait)
const METRICS_TOKEN = "bench-metrics-token";

interface RunFigures {
  replicas: number;
  ackP99: number;
  answerP50: number;
  answerP99: number;
  unanswered: number;
  api429: number;
  apiSecondsPerRequest: number;
  writesAsked: number;
  writesDone: number;
  duplicates: number;
}

/** The replicas' /metrics: the API's 429s and the API time of every request, summed. */
async function metricsOf(
  apps: Launched[],
): Promise<{ api429: number; apiSeconds: number; apiCount: number }> {
  let api429 = 0;
  let apiSeconds = 0;
  let apiCount = 0;
  for (const app of apps) {
    const text = await (
      await fetch(`http://127.0.0.1:${app.port}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      })
    ).text();
    for (const line of text.split("\n")) {
      if (line.startsWith("switchboard_api_requests_total{") && line.includes('status="429"'))
        api429 += Number(line.split(" ").pop());
      if (line.startsWith("switchboard_api_request_seconds_sum")) apiSeconds += Number(line.split(" ").pop());
      if (line.startsWith("switchboard_api_request_seconds_count")) apiCount += Number(line.split(" ").pop());
    }
  }
  return { api429, apiSeconds, apiCount };
}

async function runWith(
  n: number,
  seconds: number,
  databaseUrl: string,
  fake: FakeSlack,
  sandbox: Awaited<ReturnType<typeof startSandbox>>,
): Promise<RunFigures> {
  // A key of its own per run: its budget row and the sandbox's windows start empty.
  const org = await sandbox.createOrganization({ name: `Replicas ${n}` });
  const env = cleanEnv({
    DATABASE_URL: databaseUrl,
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    MESSAGING_API_URL: sandbox.url,
    MESSAGING_API_KEY: org.apiKey,
    METRICS_TOKEN,
    LOG_LEVEL: "error",
    INBOX_POLL_SECONDS: "5",
  });
  const apps: Launched[] = [];
  try {
    for (let i = 0; i < n; i++) apps.push(await launch(APP_ARGS, env));
    const reqs = apps.map(
      (a) => new SlackRequests(`http://127.0.0.1:${a.port}/slack/events`, SIGNING_SECRET, fake),
    );
    const total = Math.round(RATE * seconds);
    const acks: number[] = [];
    const answers: number[] = [];
    let unanswered = 0;
    let writesAsked = 0;
    const tag = `R${n}x${Date.now().toString(36)}`;
    const start = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const text =
        i === 0
          ? "report now"
          : i % WRITES_EVERY === 1
            ? `tag add ${tag}-${writesAsked++} #1D9BD1`
            : i % READS_EVERY === 0
              ? "tags"
              : "help";
      const req = reqs[i % reqs.length]!;
      inFlight.push(
        (async () => {
          const t0 = performance.now();
          try {
            const sent = await req.command(text);
            if (sent.status !== 200) throw new Error(`status ${sent.status}`);
            acks.push(performance.now() - t0);
            await fake.waitForResponse(sent.responseUrl!, 1, 60_000);
            answers.push(performance.now() - t0);
          } catch {
            unanswered += 1;
          }
        })(),
      );
    }
    await Promise.all(inFlight);
    const m = await metricsOf(apps);
    const api = new MessagingClient({ baseUrl: sandbox.url, apiKey: org.apiKey });
    const names: string[] = [];
    try {
      for (const t of (await api.listTags()).items)
        if (String(t.name).startsWith(tag)) names.push(String(t.name));
    } catch (err) {
      console.error(`replicas: could not list the tags: ${String(err)}`);
    } finally {
      await api.close();
    }
    acks.sort((a, b) => a - b);
    answers.sort((a, b) => a - b);
    return {
      replicas: n,
      ackP99: percentile(acks, 99),
      answerP50: percentile(answers, 50),
      answerP99: percentile(answers, 99),
      unanswered,
      api429: m.api429,
      apiSecondsPerRequest: m.apiCount ? m.apiSeconds / m.apiCount : Number.NaN,
      writesAsked,
      writesDone: new Set(names).size,
      duplicates: names.length - new Set(names).size,
    };
  } finally {
    for (const app of apps) await app.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error("replicas: DATABASE_URL is not set (a PostgreSQL database of its own): nothing measured");
    return [];
  }
  const seconds = Number(process.env.BENCH_REPLICAS_SECONDS ?? process.argv[2] ?? 30);
  const fake = await FakeSlack.start();
  const sandbox = await startSandbox({ readLimit: 300, writeLimit: 60, campaignTickMs: 0 });
  try {
    const runs: RunFigures[] = [];
    for (const n of [1, 2, 3]) {
      const r = await runWith(n, seconds, databaseUrl, fake, sandbox);
      console.error(JSON.stringify(r));
      runs.push(r);
    }
    const one = runs[0]!;
    const peak = peakRssMb();
    const r1 = (x: number) => Math.round(x * 10) / 10;
    const rows: BenchRow[] = [];
    for (const r of runs.slice(1)) {
      const label = `${r.replicas} replicas, ${seconds} s of ${RATE} commands/s (baseline: 1 replica)`;
      rows.push(
        {
          name: `${label}: the API's 429s`,
          figure: r.api429,
          unit: "",
          baseline: one.api429,
          peakRssMb: peak,
        },
        {
          name: `${label}: ack p99`,
          figure: r1(r.ackP99),
          unit: "ms",
          baseline: r1(one.ackP99),
          peakRssMb: peak,
        },
        {
          name: `${label}: answer p99`,
          figure: r1(r.answerP99),
          unit: "ms",
          baseline: r1(one.answerP99),
          peakRssMb: peak,
        },
        {
          name: `${label}: API time per request, shared budget included`,
          figure: r1(r.apiSecondsPerRequest * 1000),
          unit: "ms",
          baseline: r1(one.apiSecondsPerRequest * 1000),
          peakRssMb: peak,
        },
        {
          name: `${label}: tags created of ${r.writesAsked} asked (duplicates: ${r.duplicates}; unanswered commands: ${r.unanswered})`,
          figure: r.writesDone,
          unit: "",
          baseline: one.writesDone,
          peakRssMb: peak,
        },
      );
    }
    return rows;
  } finally {
    await sandbox.close();
    await fake.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = await run();
  console.log(JSON.stringify(rows));
}
