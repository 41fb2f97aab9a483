// Slash-command ack latency through Bolt's HTTP receiver at a steady 50
// requests a second: Switchboard's app (real core, embedded sandbox, answers
// through a fake Slack's response_url after the ack) side by side with a bare
// Bolt app that acks at once and does nothing else. Latency is measured from
// sending a signed request to its HTTP answer, which is what Slack's 3 s
// limit is about. The p99 ratio is decided so that noise cannot: BENCH_SLACK_ROUNDS
// (5) interleaved rounds of BENCH_SLACK_SECONDS (10) each, the two apps taking
// turns (which goes first alternates), and the figure is the median of the
// rounds' p99 ratios. Run alone: `node bench/slack-ack.bench.ts [seconds]`.
import { pathToFileURL } from "node:url";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { createSwitchboard } from "../src/host/app.ts";
import { loadConfig } from "../src/platform/config.ts";
import { createLogger } from "../src/platform/log.ts";
import { startSlackApp } from "../src/slack/app.ts";
import { openDb } from "../src/store/db.ts";
import { FakeSlack } from "../test/fakes/slack.ts";
import { SlackRequests } from "../test/fakes/slack-requests.ts";

import { percentile } from "./processes.ts";
import { type BenchRow, peakRssMb } from "./run.ts";

const SECRET = "bench-signing-secret";
const RATE = 50;

interface Load {
  p50: number;
  p99: number;
  max: number;
  sent: number;
  failed: number;
}

/** Sends `RATE` commands a second for `seconds` on a fixed schedule (open loop: a slow answer does not slow the sender). */
async function load(req: SlackRequests, seconds: number, text: string): Promise<Load> {
  const total = Math.round(RATE * seconds);
  const start = performance.now();
  const latencies: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      (async () => {
        const t0 = performance.now();
        try {
          const res = await req.command(text);
          if (res.status === 200) latencies.push(performance.now() - t0);
          else failed += 1;
        } catch {
          failed += 1;
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    sent: total,
    failed,
  };
}

/** The baseline: Bolt's defaults (auth.test once, against the same fake), a listener that only acks. */
async function bareBolt(fake: FakeSlack): Promise<{ url: string; stop: () => Promise<void> }> {
  const receiver = new HTTPReceiver({
    signingSecret: SECRET,
    endpoints: "/slack/events",
    logLevel: LogLevel.ERROR,
  });
  const app = new App({
    token: fake.botToken,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: fake.apiUrl },
  });
  app.command(/.*/, async ({ ack }) => {
    await ack();
  });
  const server = await receiver.start({ port: 0, host: "127.0.0.1" });
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/slack/events`, stop: () => app.stop().then(() => undefined) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

export async function run(
  seconds = Number(process.env.BENCH_SLACK_SECONDS ?? 10),
  rounds = Number(process.env.BENCH_SLACK_ROUNDS ?? 5),
): Promise<BenchRow[]> {
  const fake = await FakeSlack.start();
  fake.addChannel({ id: "C0GENERAL", name: "general" });
  const config = loadConfig({
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: fake.apiUrl,
    SANDBOX_PORT: "0",
    LOG_LEVEL: "error",
  });
  const logger = createLogger("error");
  const db = await openDb({});
  const switchboard = await createSwitchboard(config, { logger, db });
  const slack = await startSlackApp(switchboard, config, logger, { listen: { port: 0, host: "127.0.0.1" } });
  const bare = await bareBolt(fake);
  try {
    const ours = new SlackRequests(`http://127.0.0.1:${slack.port}/slack/events`, SECRET, fake);
    const baseline = new SlackRequests(bare.url, SECRET, fake);
    // Warm up both (JIT, first auth.test, connections), then measure one after the other.
    await load(ours, 1, "help");
    await load(baseline, 1, "help");
    const ourRounds: Load[] = [];
    const bareRounds: Load[] = [];
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        bareRounds.push(await load(baseline, seconds, "help"));
        ourRounds.push(await load(ours, seconds, "help"));
      } else {
        ourRounds.push(await load(ours, seconds, "help"));
        bareRounds.push(await load(baseline, seconds, "help"));
      }
    }
    // Each app's rounds as one load: medians of the percentiles, the worst max, the totals.
    const overall = (loads: Load[]): Load => ({
      p50: median(loads.map((l) => l.p50)),
      p99: median(loads.map((l) => l.p99)),
      max: Math.max(...loads.map((l) => l.max)),
      sent: loads.reduce((n, l) => n + l.sent, 0),
      failed: loads.reduce((n, l) => n + l.failed, 0),
    });
    const s = overall(ourRounds);
    const b = overall(bareRounds);
    const p99Ratio = median(ourRounds.map((l, i) => l.p99 / (bareRounds[i] as Load).p99));
    // Every command is answered after its ack; wait for the stragglers before closing.
    const expected = RATE * (1 + seconds * rounds) - s.failed;
    await fake.waitFor(() => fake.responses.length >= expected, 60_000, "all answers").catch(() => {});
    const answered = fake.responses.filter((r) => r.status === 200).length;
    const label = `/sb help, ${RATE}/s, ${rounds} interleaved rounds of ${seconds} s, medians`;
    // One process runs both apps, so the peak is theirs together.
    const peak = peakRssMb();
    const rows: Omit<BenchRow, "peakRssMb">[] = [
      { name: `slash ack p50 (${label})`, figure: round(s.p50), unit: "ms", baseline: round(b.p50) },
      { name: `slash ack p99 (${label})`, figure: round(s.p99), unit: "ms", baseline: round(b.p99) },
      {
        name: "slash ack p99 ratio to bare Bolt: median of the rounds' ratios (goal ≤ 1.2)",
        figure: round(p99Ratio),
        unit: "×",
        baseline: 1,
      },
      {
        name: `slash ack max (/sb help, ${RATE}/s, every round)`,
        figure: round(s.max),
        unit: "ms",
        baseline: round(b.max),
      },
      { name: "slash requests not acked with 200", figure: s.failed, unit: "requests", baseline: b.failed },
      {
        name: "answers posted to response_url (of those acked)",
        figure: answered,
        unit: "answers",
        baseline: expected,
      },
    ];
    return rows.map((r) => ({ ...r, peakRssMb: peak }));
  } finally {
    await bare.stop();
    await slack.stop();
    await switchboard.close();
    await db.close();
    await fake.close();
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = process.argv[2] ? Number(process.argv[2]) : undefined;
  console.table(await run(seconds));
}
