// Several replicas of the real process (spawned, `node src/start.js`, single
// mode) on one PostgreSQL (DATABASE_URL) with one API key, against the
// sandbox holding that key to the spec's budget (300 reads, 60 writes a
// minute: 429 beyond it). One, two and three replicas in turn, each run
// BENCH_REPLICAS_SECONDS (60: issue 27 §6's minute) of mixed load spread
// round-robin over the replicas: 50 signed slash commands a second in all
// (one in 16 reads the API, `tags`; one a second writes, `tag add` with a name
// of its own; the rest `help`), one `report now` a run, and the inbox polled
// by every replica (INBOX_POLL_SECONDS 5) while customers write in.
//
// The inbox: two inboxes, turned on with `/sb inbox on` before the load
// (`#bench-human need-human`, `#bench-all`: a conversation that needs a human
// goes to the first, the others to the second, so each channel gets half the
// messages). Four customers write in through the sandbox's control endpoint
// (POST /_sandbox/chat-users/{id}/messages; the first message of each makes
// its chat user), one message every 2 s each, 2 a second in all: two of them
// ask for a human (#bench-human), two do not (#bench-all). Why not one
// channel: a channel takes about one Slack post a second (the app's post
// queue), so one channel could not keep up with 2 messages a second.
// An inbox is polled by the replica holding its lease, so the pollers of the
// other replicas only claim (a store read) and the inbox's reads do not grow
// with the replicas.
//
// The key's reads a minute (300), whatever the replica count:
//   commands: 50/s × 60 s / 16 = 187.5 `tags` (one read each)
//   inbox, per inbox and poll (12 polls a minute at 5 s): one list read, and one
//     history read per conversation that moved (its 2 customers wrote 2 or 3
//     messages since the last poll): 3 reads × 12 = 36 a minute; 2 inboxes: 72
//     (under the background share, 300 × 0.3 = 90); plus one read per customer
//     at its first message (its conversation): 4 once
//   report now: a few reads once
//   in all about 265-275 a minute, under 300 with room for a poll that
//   overruns (before the inbox, commands read one in 12: 250 a minute).
//
// Figures: the API's 429s (goal 0, from each replica's /metrics: the commands'
// and the inbox polls' reads alike), the key's reads a minute during the load
// (all replicas' /metrics, by lane: the arithmetic above, checked), the acks'
// and the answers' p99 beside one replica's, the writes done once (tags
// created = tags asked), the customer messages mirrored into Slack threads of
// those sent, the ones mirrored twice (goal 0), and the shared budget's cost
// (the API time of a request through it).
// Needs DATABASE_URL (a server on which it makes a fresh database per run and
// drops it after); without it the module says so and measures nothing. Run
// alone: `node bench/replicas.bench.ts`.
import { MessagingClient } from "../src/api/client.ts";
import { OPERATION } from "../src/api/operations.ts";
import { startSandbox } from "../src/sandbox/index.ts";
import { FakeSlack } from "../test/fakes/slack.ts";
import { SlackRequests } from "../test/fakes/slack-requests.ts";
import {
  APP_ARGS,
  cleanEnv,
  freshDatabase,
  type Launched,
  launch,
  percentile,
  SIGNING_SECRET,
  sleep,
} from "./processes.ts";
import { type BenchRow, peakRssMb } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const RATE = 50;
const READS_EVERY = 16; // one command in 16 reads the API: ~3.1 a second, 187.5 a minute (the inbox reads ~76: see above)
const WRITES_EVERY = 50; // one in 50 writes: 1 a second, 60 a minute (the whole write budget: refused ones wait)
const METRICS_TOKEN = "bench-metrics-token";
const INBOX_POLL_SECONDS = 5;
/** The inboxes: a need-human one and an every-conversation one, each in its channel. */
const HUMAN_CHANNEL = { id: "C0BENCHHUMAN", name: "bench-human" };
const ALL_CHANNEL = { id: "C0BENCHALL", name: "bench-all" };
/** Customers writing in: the even ones ask for a human (#bench-human), the odd ones do not (#bench-all). */
const CUSTOMERS = 4;
const CUSTOMER_RATE = 2; // messages a second, in all
/** How long, after the load, the mirroring may take to catch up before what is there is counted. */
const SETTLE_MS = 60_000;

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
  customerSent: number;
  customerMirrored: number;
  customerDuplicates: number;
  /** The key's reads during the load, a minute. */
  readsPerMinute: number;
  /** Of which background (the inbox polls, the report). */
  backgroundReadsPerMinute: number;
}

/** The customer messages of this run mirrored into the inbox channels' threads, by marker: how many times each. */
function mirroredOf(fake: FakeSlack, marker: string): Map<string, number> {
  const seen = new Map<string, number>();
  const pattern = new RegExp(`${marker}-m\\d+`, "g");
  for (const m of fake.messages) {
    if (m.deleted || !m.thread_ts || m.user) continue;
    if (m.channel !== HUMAN_CHANNEL.id && m.channel !== ALL_CHANNEL.id) continue;
    const found = new Set(`${m.text ?? ""} ${JSON.stringify(m.blocks ?? [])}`.match(pattern) ?? []);
    for (const f of found) seen.set(f, (seen.get(f) ?? 0) + 1);
  }
  return seen;
}

/**
 * Customers writing in at CUSTOMER_RATE until `until` (performance.now()): the
 * first message of each through the sandbox's inbound (it makes the chat user),
 * the others through its control endpoint. Returns how many were sent.
 */
async function customersWrite(
  sandbox: Awaited<ReturnType<typeof startSandbox>>,
  apiKey: string,
  marker: string,
  start: number,
  until: number,
): Promise<number> {
  const ids: number[] = [];
  let sent = 0;
  for (let j = 0; ; j++) {
    const due = start + (j * 1000) / CUSTOMER_RATE;
    if (due >= until) break;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const c = j % CUSTOMERS;
    const needHuman = c % 2 === 0;
    const text = `Hello from customer ${c} (${marker}-m${j})`;
    try {
      if (ids[c] === undefined) {
        const phone = `+1415558${String(1000 + c).padStart(4, "0")}`;
        ids[c] = (await sandbox.inbound({ phone, text, needHuman, of: { apiKey } })).chatUserId;
      } else {
        const res = await fetch(`${sandbox.controlUrl}/chat-users/${ids[c]}/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": apiKey },
          body: JSON.stringify(needHuman ? { text, needHuman } : { text }),
        });
        if (res.status !== 201) throw new Error(`status ${res.status}: ${await res.text()}`);
      }
      sent++;
    } catch (err) {
      console.error(`replicas: a customer message was not sent: ${String(err)}`);
    }
  }
  return sent;
}

/**
 * The replicas' /metrics: the API's 429s, the API time of every request, and the
 * reads answered (not 429) by lane (interactive: the commands; background: the
 * inbox polls and the report), summed.
 */
async function metricsOf(apps: Launched[]): Promise<{
  api429: number;
  apiSeconds: number;
  apiCount: number;
  reads: { interactive: number; background: number };
}> {
  let api429 = 0;
  let apiSeconds = 0;
  let apiCount = 0;
  const reads = { interactive: 0, background: 0 };
  const operations = OPERATION as Record<string, { method: string } | undefined>;
  for (const app of apps) {
    const text = await (
      await fetch(`http://127.0.0.1:${app.port}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      })
    ).text();
    for (const line of text.split("\n")) {
      if (line.startsWith("switchboard_api_requests_total{") && line.includes('status="429"'))
        api429 += Number(line.split(" ").pop());
      const counted = /^switchboard_api_requests_total\{([^}]*)\} (\S+)$/.exec(line);
      if (counted) {
        const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(counted[1]!)?.[1];
        if (operations[label("operation") ?? ""]?.method === "GET" && label("status") !== "429")
          reads[label("lane") === "background" ? "background" : "interactive"] += Number(counted[2]);
      }
      if (line.startsWith("switchboard_api_request_seconds_sum")) apiSeconds += Number(line.split(" ").pop());
      if (line.startsWith("switchboard_api_request_seconds_count")) apiCount += Number(line.split(" ").pop());
    }
  }
  return { api429, apiSeconds, apiCount, reads };
}

async function runWith(
  n: number,
  seconds: number,
  databaseUrl: string,
  fake: FakeSlack,
  sandbox: Awaited<ReturnType<typeof startSandbox>>,
): Promise<RunFigures> {
  // A key of its own per run: its budget row and the sandbox's windows start empty. No demo
  // data: the only conversations are the bench's customers'.
  const org = await sandbox.createOrganization({ name: `Replicas ${n}`, seed: "empty" });
  // A database of its own per run: no inbox, thread or budget row of an earlier run.
  const db = await freshDatabase(databaseUrl, `sb_bench_replicas_${n}_${Date.now().toString(36)}`);
  const env = cleanEnv({
    DATABASE_URL: db.url,
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    MESSAGING_API_URL: sandbox.url,
    MESSAGING_API_KEY: org.apiKey,
    METRICS_TOKEN,
    LOG_LEVEL: "error",
    INBOX_POLL_SECONDS: String(INBOX_POLL_SECONDS),
  });
  const apps: Launched[] = [];
  try {
    for (let i = 0; i < n; i++) apps.push(await launch(APP_ARGS, env));
    const reqs = apps.map(
      (a) => new SlackRequests(`http://127.0.0.1:${a.port}/slack/events`, SIGNING_SECRET, fake),
    );
    // The inboxes, on before the load (a writer's commands, answered).
    // (The answer comes to the response URL or, said to the channel, as a message there.)
    for (const ch of [HUMAN_CHANNEL, ALL_CHANNEL]) {
      const line = `inbox on <#${ch.id}|${ch.name}>${ch === HUMAN_CHANNEL ? " need-human" : ""}`;
      const before = fake.messages.length;
      const sent = await reqs[0]!.command(line, { channelId: ch.id, channelName: ch.name });
      if (sent.status !== 200) throw new Error(`${line}: status ${sent.status}`);
      const said = await fake.waitFor(
        () =>
          fake.responsesTo(sent.responseUrl!)[0]?.body.text ??
          fake.messages.slice(before).find((m) => m.channel === ch.id && !m.thread_ts)?.text,
      );
      if (!/inbox on/i.test(String(said))) throw new Error(`${line} in #${ch.name}: ${String(said)}`);
    }
    const total = Math.round(RATE * seconds);
    const acks: number[] = [];
    const answers: number[] = [];
    let unanswered = 0;
    let writesAsked = 0;
    const tag = `R${n}x${Date.now().toString(36)}`;
    const marker = `bench${n}x${Date.now().toString(36)}`;
    const before = await metricsOf(apps);
    const start = performance.now();
    const customers = customersWrite(sandbox, org.apiKey, marker, start, start + seconds * 1000);
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
    const customerSent = await customers;
    const during = await metricsOf(apps);
    const minutes = (performance.now() - start) / 60_000;
    // The mirroring catches up (a poll, the channels' post queues), then is counted.
    const settleEnd = Date.now() + SETTLE_MS;
    while (mirroredOf(fake, marker).size < customerSent && Date.now() < settleEnd) await sleep(500);
    await sleep(INBOX_POLL_SECONDS * 1000); // a poll more: a message mirrored twice would show now
    const mirrored = mirroredOf(fake, marker);
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
      customerSent,
      customerMirrored: mirrored.size,
      customerDuplicates: [...mirrored.values()].reduce((a, k) => a + k - 1, 0),
      readsPerMinute:
        (during.reads.interactive +
          during.reads.background -
          before.reads.interactive -
          before.reads.background) /
        minutes,
      backgroundReadsPerMinute: (during.reads.background - before.reads.background) / minutes,
    };
  } finally {
    for (const app of apps) await app.stop();
    await db
      .drop()
      .catch((err) => console.error(`replicas: could not drop the run's database: ${String(err)}`));
  }
}

/** `seconds`: run alone, the command line's (`node bench/replicas.bench.ts 20`); under bench/run.ts, none. */
export async function run(secondsArg?: string): Promise<BenchRow[]> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error("replicas: DATABASE_URL is not set (a PostgreSQL database of its own): nothing measured");
    return [];
  }
  const seconds = Number(process.env.BENCH_REPLICAS_SECONDS ?? secondsArg ?? 60);
  if (!(seconds > 0)) {
    console.error(`replicas: BENCH_REPLICAS_SECONDS must be a number of seconds above 0: nothing measured`);
    return [];
  }
  const fake = await FakeSlack.start();
  fake.addChannel(HUMAN_CHANNEL);
  fake.addChannel(ALL_CHANNEL);
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
      const label = `${r.replicas} replicas, ${seconds} s of ${RATE} commands/s and ${CUSTOMER_RATE} customer messages/s (baseline: 1 replica)`;
      rows.push(
        {
          name: `${label}: the API's 429s (commands, report and inbox polls; goal 0)`,
          figure: r.api429,
          unit: "",
          baseline: one.api429,
          peakRssMb: peak,
        },
        {
          name: `${label}: the key's reads a minute during the load (background: ${Math.round(r.backgroundReadsPerMinute)}; budget 300)`,
          figure: Math.round(r.readsPerMinute),
          unit: "reads/min",
          baseline: Math.round(one.readsPerMinute),
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
        {
          name: `${label}: customer messages mirrored into Slack threads of ${r.customerSent} sent (1 replica: ${one.customerMirrored} of ${one.customerSent})`,
          figure: r.customerMirrored,
          unit: "",
          baseline: one.customerMirrored,
          peakRssMb: peak,
        },
        {
          name: `${label}: customer messages mirrored twice (goal 0)`,
          figure: r.customerDuplicates,
          unit: "",
          baseline: one.customerDuplicates,
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

runWhenMain(import.meta.url, ([seconds]) => run(seconds));
