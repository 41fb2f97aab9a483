// Summaries against the real sandbox over HTTP, through a counting proxy on
// loopback: the counts must equal what the sandbox holds, at 1 + 7 requests
// a campaign; and against a server without page totals: paged and marked partial.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import { PAGE_CAP, RECENT_CAP, STATUSES, summarize, summarizeCampaign } from "../../src/reports/summary.ts";
import { type CountingProxy, startProxy } from "../helpers/proxy.ts";
import { withSandbox } from "../helpers/sandbox.ts";
import { requestsFor, seedCampaign, startBareServer, truthOf } from "./helpers.ts";

const sandbox = withSandbox({ campaignTickMs: 0, readLimit: 100_000, writeLimit: 10_000 });
let proxy: CountingProxy;
let client: MessagingClient;

beforeAll(async () => {
  proxy = await startProxy(sandbox().url);
  client = new MessagingClient({
    baseUrl: proxy.url,
    apiKey: sandbox().apiKey,
    limiter: new RateLimiter({ readPerMinute: 100_000, writePerMinute: 10_000, backgroundReadShare: 1 }),
  });
});
afterAll(async () => {
  await proxy.close();
});

describe("summary with page totals", () => {
  it("equals the sandbox's truth for a campaign being sent, at 1 + 7 requests", async () => {
    // The seeded draft, sent through the API and moved on by the sandbox's own ticks.
    const drafts = await client.listCampaigns({ status: "draft" });
    const draft = drafts.items[0];
    expect(draft?.id).toBeTypeOf("number");
    const id = draft?.id as number;
    await client.sendCampaign(id);
    for (let i = 0; i < 2; i++) {
      await sandbox().tick();
      const truth = await truthOf(sandbox().db, id);
      const before = proxy.seen.length;
      const s = await summarizeCampaign(client, id, { lane: "background" });
      const mine = requestsFor(proxy.seen.slice(before), id);
      expect(s.counts).toEqual(truth);
      expect(s.total).toBe(STATUSES.reduce((n, st) => n + truth[st], 0));
      expect(s.method).toBe("totals");
      expect(s.partial).toBe(false);
      expect(mine.length).toBe(8);
      expect(s.requests).toBe(8);
      expect(mine.filter((r) => r.includes("limit=1")).length).toBe(7);
    }
  });

  it("costs the same 8 requests for 20,000 recipients, with rates as defined", async () => {
    const counts = {
      pending: 9000,
      sending: 500,
      sent: 1500,
      delivered: 4000,
      read: 3000,
      failed: 1600,
      skipped: 400,
    };
    const id = await seedCampaign(sandbox().db, { name: "Big one", status: "running", counts });
    const before = proxy.seen.length;
    const s = await summarizeCampaign(client, id);
    expect(requestsFor(proxy.seen.slice(before), id)).toHaveLength(8);
    expect(s.counts).toEqual(await truthOf(sandbox().db, id));
    expect(s.name).toBe("Big one");
    expect(s.status).toBe("running");
    // attempted = sent + delivered + read + failed = 10,100
    expect(s.attempted).toBe(10_100);
    expect(s.rates.delivered).toBeCloseTo(7000 / 10_100, 10);
    expect(s.rates.read).toBeCloseTo(3000 / 7000, 10);
    expect(s.rates.failed).toBeCloseTo(1600 / 10_100, 10);
  });

  it("summarizes every running campaign from the list, without a GET per campaign", async () => {
    const running = await sandbox().db.query<{ id: number }>(
      "select id from sandbox.campaigns where status = 'running' order by id",
    );
    const before = proxy.seen.length;
    const r = await summarize(client, { kind: "running" });
    const seen = proxy.seen.slice(before);
    expect(r.campaigns.map((c) => c.id).sort((a, b) => a - b)).toEqual(running.rows.map((x) => x.id));
    for (const c of r.campaigns) expect(c.counts).toEqual(await truthOf(sandbox().db, c.id));
    // One list request, then 7 per campaign (the list gave the records).
    expect(seen.length).toBe(1 + 7 * running.rows.length);
    expect(r.requests).toBe(seen.length);
    expect(seen.every((x) => x.startsWith("GET "))).toBe(true);
  });

  it("keeps `all` to the most recent campaigns and says how many were left out", async () => {
    const total = Number(
      (await sandbox().db.query<{ n: string }>("select count(*) as n from sandbox.campaigns")).rows[0]?.n,
    );
    for (let i = total; i < RECENT_CAP + 2; i++) {
      await seedCampaign(sandbox().db, { name: `Filler ${i}`, status: "completed", counts: { read: 3 } });
    }
    const newest = await seedCampaign(sandbox().db, {
      name: "Newest",
      status: "completed",
      counts: { delivered: 2 },
      createdAt: new Date(Date.now() + 60_000),
    });
    // A draft, newer still: nothing sent, so no report of "all" shows it (issue 22 §6).
    const draft = await seedCampaign(sandbox().db, {
      name: "Unsent draft",
      status: "draft",
      counts: {},
      createdAt: new Date(Date.now() + 120_000),
    });
    const all = Number(
      (
        await sandbox().db.query<{ n: string }>(
          "select count(*) as n from sandbox.campaigns where status <> 'draft'",
        )
      ).rows[0]?.n,
    );
    const r = await summarize(client, { kind: "all" });
    expect(r.campaigns).toHaveLength(RECENT_CAP);
    expect(r.campaigns[0]?.id).toBe(newest);
    expect(r.campaigns.map((c) => c.id)).not.toContain(draft);
    expect(r.campaigns.every((c) => c.status !== "draft")).toBe(true);
    expect(r.omitted).toBe(all - RECENT_CAP);
  });

  it("reports a deleted or unknown campaign as an error of the report, not a failure", async () => {
    const r = await summarize(client, { kind: "campaign", id: 999_999 });
    expect(r.campaigns).toEqual([]);
    expect(r.errors).toEqual([
      { campaignId: 999_999, message: expect.stringMatching(/999999 was not found/) },
    ]);
  });
});

describe("summary without page totals", () => {
  it("pages at limit=100 up to the cap and marks the figure partial", async () => {
    const many = [
      ...Array(1500).fill("delivered"),
      ...Array(700).fill("failed"),
      ...Array(300).fill("pending"),
    ] as string[];
    const few = [...Array(120).fill("read"), ...Array(30).fill("skipped")] as string[];
    const server = await startBareServer(
      new Map([
        [1, { name: "No totals, big", status: "running", recipients: many }],
        [2, { name: "No totals, small", status: "completed", recipients: few }],
      ]),
    );
    try {
      const bare = new MessagingClient({
        baseUrl: server.url,
        apiKey: "k",
        limiter: new RateLimiter({ readPerMinute: 100_000, backgroundReadShare: 1 }),
      });
      const big = await summarizeCampaign(bare, 1);
      expect(big.method).toBe("paging");
      expect(big.partial).toBe(true);
      expect(big.total).toBe(PAGE_CAP * 100);
      expect(big.counts.delivered).toBe(1500);
      expect(big.counts.failed).toBe(500);
      // GET campaign, one limit=1 probe, then PAGE_CAP pages.
      expect(big.requests).toBe(2 + PAGE_CAP);
      expect(requestsFor(server.seen, 1)).toHaveLength(2 + PAGE_CAP);
      expect(
        requestsFor(server.seen, 1)
          .slice(2)
          .every((r) => r.includes("limit=100")),
      ).toBe(true);

      const small = await summarizeCampaign(bare, 2);
      expect(small.partial).toBe(false);
      expect(small.counts).toMatchObject({ read: 120, skipped: 30, failed: 0 });
      expect(small.requests).toBe(4);
    } finally {
      await server.close();
    }
  });
});
