// Report benchmark (issue 5, section 7): a report of 10 running campaigns of
// 100,000 recipients each against the sandbox on loopback, side by side with
// paging through every recipient (limit=100), the way a report without page
// totals would have to count. Requests are counted by a proxy in front of the
// sandbox. The recipients are written straight into the sandbox's tables.
// Peak memory is the process's (it hosts the embedded sandbox and its
// database too), read after each measure.
//
//   node bench/report.bench.ts [recipientsPerCampaign] [campaigns] [--full]
//   run() from bench/run.ts returns the rows
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_PAGE, STATUSES, summarize } from "../src/reports/summary.ts";
import { type BenchRow, peakRssMb } from "./run.ts";
import { benchClient, runWhenMain, startBenchSandbox } from "./setup.ts";

async function countingProxy(target: string) {
  const t = new URL(target);
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    const up = httpRequest(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        const { connection: _c, "keep-alive": _k, ...headers } = r.headers;
        res.writeHead(r.statusCode ?? 502, headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${t.pathname}`,
    count: () => count,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

export async function run(perCampaign = 100_000, campaigns = 10, full = false): Promise<BenchRow[]> {
  const sandbox = await startBenchSandbox();
  const proxy = await countingProxy(sandbox.url);
  try {
    const db = sandbox.db;
    // Only the bench's campaigns are running.
    await db.query("update sandbox.campaigns set status = 'completed' where status = 'running'");
    const ref = await db.query<{ t: number; c: number }>(
      "select (select min(id) from sandbox.templates where channel_id = 1) as t, (select min(id) from sandbox.contacts) as c",
    );
    const { t, c } = ref.rows[0] as { t: number; c: number };
    const ids: number[] = [];
    for (let i = 0; i < campaigns; i++) {
      const r = await db.query<{ id: number }>(
        `insert into sandbox.campaigns (name, integration_id, template_id, status, created_at, updated_at)
         values ($1, 1, $2, 'running', now(), now()) returning id`,
        [`Bench campaign ${i + 1}`, t],
      );
      const id = (r.rows[0] as { id: number }).id;
      ids.push(id);
      // Statuses spread as a campaign midway through: every status present.
      await db.query(
        `insert into sandbox.campaign_recipients (campaign_id, contact_id, phone, status, created_at, updated_at)
         select $1, $2, '+1415' || lpad(g::text, 7, '0'),
                (array['pending','sending','sent','delivered','read','read','delivered','failed','skipped','delivered'])[1 + g % 10],
                now(), now()
         from generate_series(1, $3::int) g`,
        [id, c, perCampaign],
      );
    }
    await db.query("analyze sandbox.campaign_recipients");

    const client = await benchClient(proxy.url, sandbox.apiKey);

    // The report: 1 list request + 7 limit=1 requests per campaign.
    let before = proxy.count();
    let start = performance.now();
    const report = await summarize(client, { kind: "running" });
    const reportMs = performance.now() - start;
    const reportRequests = proxy.count() - before;
    const reportRss = peakRssMb();
    const counted = report.campaigns.reduce((n, s) => n + s.total, 0);
    if (counted !== perCampaign * campaigns) throw new Error(`report counted ${counted} recipients`);

    // The baseline: every recipient, page by page, counted by status.
    before = proxy.count();
    start = performance.now();
    let paged = 0;
    const byStatus = new Map<string, number>();
    // Paging all 1,000,000 recipients through an embedded database takes a quarter of an hour on a
    // small machine; by default the first campaign is paged for real and the others, of the same
    // size, are counted as the same (`full` pages them all).
    const pagedIds = full ? ids : ids.slice(0, 1);
    const factor = ids.length / pagedIds.length;
    for (const id of pagedIds) {
      for (let page = 1; ; page++) {
        const p = await client.listCampaignRecipients(id, { page, limit: MAX_PAGE }, { lane: "background" });
        for (const r of p.items) byStatus.set(String(r.status), (byStatus.get(String(r.status)) ?? 0) + 1);
        paged += p.items.length;
        if (p.items.length < MAX_PAGE) break;
      }
    }
    const pagingMs = (performance.now() - start) * factor;
    const pagingRequests = (proxy.count() - before) * factor;
    const pagingRss = peakRssMb();
    const pagedSet = new Set(pagedIds);
    const inPaged = report.campaigns.filter((x) => pagedSet.has(x.id));
    if (paged !== inPaged.reduce((n, x) => n + x.total, 0)) throw new Error(`paging counted ${paged}`);
    for (const s of STATUSES) {
      const fromReport = inPaged.reduce((n, x) => n + x.counts[s], 0);
      if ((byStatus.get(s) ?? 0) !== fromReport)
        throw new Error(`${s}: paging ${byStatus.get(s)}, report ${fromReport}`);
    }

    const size = `${campaigns} campaigns × ${perCampaign.toLocaleString("en-US")} recipients`;
    // At the spec's 300 reads a minute, with the default 30% background share (90 a minute).
    const budgetMinutes = (n: number) => Math.round((n / 90) * 10) / 10;
    return [
      {
        name: `report requests (${size})`,
        figure: reportRequests,
        unit: "requests",
        baseline: pagingRequests,
        peakRssMb: reportRss,
      },
      {
        name: `report time on loopback (baseline: paging every recipient${full ? "" : `, 1 campaign measured ×${factor}`})`,
        figure: Math.round(reportMs),
        unit: "ms",
        baseline: Math.round(pagingMs),
        peakRssMb: pagingRss,
      },
      {
        name: "minutes of background read budget (90/min of 300/min)",
        figure: budgetMinutes(reportRequests),
        unit: "min",
        baseline: budgetMinutes(pagingRequests),
        peakRssMb: pagingRss,
      },
    ];
  } finally {
    proxy.close();
    await sandbox.close();
  }
}

runWhenMain(import.meta.url, (args) => {
  const [per, n] = args.filter((a) => a !== "--full");
  return run(per ? Number(per) : undefined, n ? Number(n) : undefined, args.includes("--full"));
});
