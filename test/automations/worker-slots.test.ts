// The automations worker's slots (issue 40 §3 and §4, docs/benchmarks.md,
// Automations): a job sent wakes the workers (pg-boss's LISTEN/NOTIFY) instead
// of waiting for their next poll, and one hook's attempts hold at most
// ATTEMPTS_PER_HOOK of a replica's, so an endpoint that hangs leaves the other
// slots to other hooks. The worker polls once an hour and an attempt may hang
// for an hour here: an event that arrives at all arrived because of the wake
// and the spare slot (without them the tests wait until their time limit).
// Real pg-boss on the store's database, receivers on 127.0.0.1.

import { randomBytes } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTEMPTS_PER_HOOK, AUTOMATIONS_BOSS, Automations } from "../../src/automations/index.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { AutomationStore } from "../../src/store/automations.ts";
import { eventually } from "../helpers/eventually.ts";
import { startWorkerStack, type WorkerStack } from "./worker-stack.ts";

/** A receiver on 127.0.0.1: the event ids it got; `hang`: it never answers (until closed). */
async function receiver(hang = false) {
  const got: string[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      got.push(String((JSON.parse(body) as { id?: string }).id));
      if (hang) held.push(res);
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${randomBytes(6).toString("hex")}`,
    got,
    close: () =>
      new Promise<void>((r) => {
        for (const res of held) res.destroy();
        server.close(() => r());
      }),
  };
}

describe("the automations worker's slots", () => {
  const keyring = new Keyring(randomBytes(32));
  const rules = { allowPrivate: true };
  const closers: Array<() => Promise<void>> = [];
  let stack: WorkerStack | undefined;
  beforeAll(async () => {
    stack = await startWorkerStack(
      {
        keyring,
        rules,
        concurrency: ATTEMPTS_PER_HOOK + 1,
        pollingIntervalSeconds: 3600,
        sweepSeconds: 0,
        timeoutMs: 3_600_000,
      },
      AUTOMATIONS_BOSS,
    );
  }, 120_000);
  afterAll(async () => {
    for (const c of closers) await c();
    await stack?.close();
  });

  const automations = (ws: string) =>
    new Automations({ keyring, rules, queue: () => stack?.worker }, new AutomationStore(stack!.db, ws));

  it("an event sent is fetched at once, not at the workers' next poll (an hour away)", async () => {
    const r = await receiver();
    closers.push(r.close);
    const a = automations("T0WAKE");
    expect((await a.add("campaign.started", r.url, "U0A")).ok).toBe(true);
    const e = await a.emit("campaign.started", { campaign_id: 1, campaign_name: "Spring" });
    await eventually(() => r.got.includes(e!.id), "the event, woken");
  });

  it("an endpoint that hangs holds at most ATTEMPTS_PER_HOOK slots: another hook's event goes by in the one left", async () => {
    const hanging = await receiver(true);
    const healthy = await receiver();
    closers.push(hanging.close, healthy.close);
    const a = automations("T0SLOTS");
    expect((await a.add("import.finished", hanging.url, "U0A")).ok).toBe(true);
    // Every slot's worth of the hanging hook's events first, then one for the healthy hook.
    for (let i = 0; i <= ATTEMPTS_PER_HOOK; i++)
      await a.emit("import.finished", { file_name: `${i}.csv`, imported: 1, failed: 0 });
    await eventually(() => hanging.got.length === ATTEMPTS_PER_HOOK, "the hanging hook's attempts");
    const b = automations("T0SLOTS2");
    expect((await b.add("campaign.completed", healthy.url, "U0B")).ok).toBe(true);
    const e = await b.emit("campaign.completed", { campaign_id: 2, campaign_name: "Autumn" });
    await eventually(() => healthy.got.includes(e!.id), "the healthy hook's event");
    // The hanging hook never had a third attempt in flight: its third event still waits for a slot of its own.
    expect(hanging.got.length).toBe(ATTEMPTS_PER_HOOK);
  });
});
