// The slash-command sender of the ack benchmark (bench/slack-ack.bench.ts), in
// a process of its own, as Slack's request senders are not its response_url
// endpoints: the fake Slack that takes each answer stays in the bench's
// process, so an answer Switchboard posts after its ack is never handled on
// the event loop that times the next ack. Reads a plan as JSON on stdin:
//   { rate, secret, targets: [{ url, pid }], phases: [{ bodies: string[][] }] }
// (each phase: for each target, the form bodies of its commands, in order);
// target j's i-th request of a phase is due at (i + j / n) / rate s, signed
// at sending. Writes one JSON line: for each phase, each target's latencies
// (ms, -1 for a request not answered 200) and the CPU time (ms) each target's
// process used over the phase.
import { createHmac } from "node:crypto";
import { text } from "node:stream/consumers";
import { cpuMsOf } from "./processes.ts";

interface Plan {
  rate: number;
  secret: string;
  targets: Array<{ url: string; pid: number }>;
  phases: Array<{ bodies: string[][] }>;
}

const plan = JSON.parse(await text(process.stdin)) as Plan;

async function send(url: string, body: string): Promise<number> {
  const t0 = performance.now();
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac("sha256", plan.secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": signature,
      },
      body,
    });
    await res.arrayBuffer();
    return res.status === 200 ? performance.now() - t0 : -1;
  } catch {
    return -1;
  }
}

const out: Array<{ latencies: number[][]; cpuMs: number[] }> = [];
for (const phase of plan.phases) {
  const n = plan.targets.length;
  const period = 1000 / plan.rate;
  const cpu0 = plan.targets.map((t) => cpuMsOf(t.pid));
  const latencies: number[][] = plan.targets.map(() => []);
  const inFlight: Promise<void>[] = [];
  const count = Math.max(...phase.bodies.map((b) => b.length));
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    for (const [j, target] of plan.targets.entries()) {
      const body = phase.bodies[j]?.[i];
      if (body === undefined) continue;
      const wait = start + i * period + (j * period) / n - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(send(target.url, body).then((ms) => void latencies[j]?.push(ms)));
    }
  }
  await Promise.all(inFlight);
  out.push({ latencies, cpuMs: plan.targets.map((t, j) => cpuMsOf(t.pid) - (cpu0[j] as number)) });
}
process.stdout.write(`${JSON.stringify(out)}\n`);
