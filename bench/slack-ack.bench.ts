// Slash-command ack latency through Bolt's HTTP receiver at a steady 50
// requests a second: Switchboard's real process (`node --liftoff-only
// src/start.js`, one workspace on its embedded defaults: the sandbox API and
// PGlite in a DATA_DIR of its own; it answers through a fake Slack's
// response_url after the ack) side by side with a bare Bolt app that acks at
// once and does nothing else (bench/bare-bolt.ts), each in a process of its
// own, as Slack sees them: the sender and the fake Slack run in this process,
// so neither app shares its event loop with the one that measures. Latency is
// measured from sending a signed request to its HTTP answer, which is what
// Slack's 3 s limit is about. The p99 ratio is decided so that the machine's
// own pauses cannot: both apps are loaded at once, their requests interleaved
// (ours at 0, 20, 40 ms, …, bare Bolt's at 10, 30, 50 ms, …), so a pause of the
// machine falls on both alike; BENCH_SLACK_ROUNDS (5) rounds of
// BENCH_SLACK_SECONDS (10) each, and the figure is the median of the rounds'
// p99 ratios. Each app's CPU time a command (/proc,
// the answer's work included) is given beside. Run alone:
// `node bench/slack-ack.bench.ts [seconds]`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FakeSlack } from "../test/fakes/slack.ts";
import { SlackRequests } from "../test/fakes/slack-requests.ts";
import {
  APP_ARGS,
  BARE_BOLT_ARGS,
  cleanEnv,
  cpuMsOf,
  type Launched,
  latencies,
  launch,
  median,
  SIGNING_SECRET,
} from "./processes.ts";
import type { BenchRow } from "./run.ts";

const RATE = 50;

interface Load {
  p50: number;
  p99: number;
  max: number;
  sent: number;
  failed: number;
}

/**
 * Sends `RATE` commands a second to each of `targets` for `seconds`, on one
 * fixed schedule (open loop: a slow answer does not slow the sender), the
 * targets' requests interleaved: target j's i-th request is due at
 * (i + j / n) / RATE s, so every target is measured over the same seconds of
 * the machine, its pauses shared alike.
 */
async function load(targets: SlackRequests[], seconds: number, text: string): Promise<Load[]> {
  const total = Math.round(RATE * seconds);
  const period = 1000 / RATE;
  const start = performance.now();
  const times: number[][] = targets.map(() => []);
  const failed = targets.map(() => 0);
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    for (const [j, req] of targets.entries()) {
      const due = start + i * period + (j * period) / targets.length;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(
        (async () => {
          const t0 = performance.now();
          try {
            const res = await req.command(text);
            if (res.status === 200) times[j]?.push(performance.now() - t0);
            else failed[j] = (failed[j] ?? 0) + 1;
          } catch {
            failed[j] = (failed[j] ?? 0) + 1;
          }
        })(),
      );
    }
  }
  await Promise.all(inFlight);
  return times.map((l, j) => ({ ...latencies(l), sent: total, failed: failed[j] ?? 0 }));
}

type Round = Load & { cpuMs: number };

export async function run(
  seconds = Number(process.env.BENCH_SLACK_SECONDS ?? 10),
  rounds = Number(process.env.BENCH_SLACK_ROUNDS ?? 5),
): Promise<BenchRow[]> {
  const fake = await FakeSlack.start();
  fake.addChannel({ id: "C0GENERAL", name: "general" });
  const slackEnv = {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    LOG_LEVEL: "error",
  };
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-ack-bench-"));
  let ours: Launched | undefined;
  let bare: Launched | undefined;
  try {
    ours = await launch(APP_ARGS, cleanEnv({ ...slackEnv, DATA_DIR: dataDir, SANDBOX_PORT: "0" }));
    bare = await launch(BARE_BOLT_ARGS, cleanEnv(slackEnv));
    const oursReq = new SlackRequests(`http://127.0.0.1:${ours.port}/slack/events`, SIGNING_SECRET, fake);
    const bareReq = new SlackRequests(`http://127.0.0.1:${bare.port}/slack/events`, SIGNING_SECRET, fake);
    // A round: both apps under load over the same seconds, each process's CPU time over it.
    const measured = async (): Promise<[Round, Round]> => {
      const cpu0 = [cpuMsOf(ours!.pid), cpuMsOf(bare!.pid)];
      const [o, b] = (await load([oursReq, bareReq], seconds, "help")) as [Load, Load];
      return [
        { ...o, cpuMs: (cpuMsOf(ours!.pid) - (cpu0[0] as number)) / o.sent },
        { ...b, cpuMs: (cpuMsOf(bare!.pid) - (cpu0[1] as number)) / b.sent },
      ];
    };
    // Warm up both (JIT, first auth.test, connections), then measure.
    await load([oursReq, bareReq], 2, "help");
    const ourRounds: Round[] = [];
    const bareRounds: Round[] = [];
    for (let i = 0; i < rounds; i++) {
      const [o, b] = await measured();
      ourRounds.push(o);
      bareRounds.push(b);
      console.error(`slack-ack: round ${i + 1}: p99 ${round(o.p99)} ms, bare Bolt ${round(b.p99)} ms`);
    }
    // Each app's rounds as one load: medians of the percentiles and of the CPU, the worst max, the totals.
    const overall = (loads: Round[]) => ({
      p50: median(loads.map((l) => l.p50)),
      p99: median(loads.map((l) => l.p99)),
      max: Math.max(...loads.map((l) => l.max)),
      cpuMs: median(loads.map((l) => l.cpuMs)),
      sent: loads.reduce((n, l) => n + l.sent, 0),
      failed: loads.reduce((n, l) => n + l.failed, 0),
    });
    const s = overall(ourRounds);
    const b = overall(bareRounds);
    const p99Ratio = median(ourRounds.map((l, i) => l.p99 / (bareRounds[i] as Load).p99));
    // Every command of ours is answered after its ack (the bare app answers none); wait for the stragglers.
    const expected = RATE * (2 + seconds * rounds) - s.failed;
    await fake.waitFor(() => fake.responses.length >= expected, 60_000, "all answers").catch(() => {});
    const answered = fake.responses.filter((r) => r.status === 200).length;
    const label = `/sb help, ${RATE}/s each, ${rounds} rounds of ${seconds} s, requests interleaved, medians`;
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
      {
        name: "the process's CPU time a command (Switchboard acks and answers; bare Bolt only acks), median",
        figure: round(s.cpuMs),
        unit: "ms",
        baseline: round(b.cpuMs),
      },
      { name: "slash requests not acked with 200", figure: s.failed, unit: "requests", baseline: b.failed },
      {
        name: "answers posted to response_url (of those acked)",
        figure: answered,
        unit: "answers",
        baseline: expected,
      },
    ];
    // The peak column: Switchboard's process's high-water mark.
    const peak = ours.memory().peakMb;
    return rows.map((r) => ({ ...r, peakRssMb: peak }));
  } finally {
    await bare?.stop();
    await ours?.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = process.argv[2] ? Number(process.argv[2]) : undefined;
  console.table(await run(seconds));
}
