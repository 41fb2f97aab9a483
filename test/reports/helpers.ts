// Loopback servers for the report tests: a small API that gives no page
// totals, and bulk seeding of campaigns straight into the sandbox's tables.
// (The counting proxy in front of the sandbox is test/helpers/proxy.ts.)
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Counts } from "../../src/domain/reports.ts";
import { STATUSES } from "../../src/reports/summary.ts";
import type { Db } from "../../src/store/db.ts";

/**
 * An API that lists recipients as a bare JSON array (no total, as some
 * services do). Only what the summary reads: campaigns and their recipients.
 */
export async function startBareServer(
  campaigns: Map<number, { name: string; status: string; recipients: string[] }>,
): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const m = /^\/v1\/campaigns\/(\d+)(\/recipients)?$/.exec(url.pathname);
    const c = m ? campaigns.get(Number(m[1])) : undefined;
    if (!m || !c) return send(404, { message: "Not found" });
    if (!m[2]) return send(200, { id: Number(m[1]), name: c.name, status: c.status });
    const page = Number(url.searchParams.get("page") ?? 1);
    const limit = Number(url.searchParams.get("limit") ?? 50);
    const status = url.searchParams.get("status");
    const rows = c.recipients
      .map((s, i) => ({ id: i + 1, status: s }))
      .filter((r) => !status || r.status === status);
    send(200, rows.slice((page - 1) * limit, page * limit));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A campaign with recipients in the given statuses, written straight into the
 * sandbox's tables (fast enough for 100,000 recipients). Returns its id.
 */
export async function seedCampaign(
  db: Db,
  spec: { name: string; status: string; counts: Partial<Counts>; createdAt?: Date },
): Promise<number> {
  const ref = await db.query<{ template_id: number; contact_id: number }>(
    `select (select id from sandbox.templates where channel_id = 1 order by id limit 1) as template_id,
            (select id from sandbox.contacts order by id limit 1) as contact_id`,
  );
  const { template_id, contact_id } = ref.rows[0] as { template_id: number; contact_id: number };
  const at = spec.createdAt ?? new Date();
  const c = await db.query<{ id: number }>(
    `insert into sandbox.campaigns (name, integration_id, template_id, status, created_at, updated_at)
     values ($1, 1, $2, $3, $4, $4) returning id`,
    [spec.name, template_id, spec.status, at],
  );
  const id = (c.rows[0] as { id: number }).id;
  for (const s of STATUSES) {
    const n = spec.counts[s] ?? 0;
    if (n === 0) continue;
    await db.query(
      `insert into sandbox.campaign_recipients (campaign_id, contact_id, phone, status, created_at, updated_at)
       select $1, $2, '+1415555' || lpad(g::text, 6, '0'), $3, $4, $4 from generate_series(1, $5::int) g`,
      [id, contact_id, s, at, n],
    );
  }
  return id;
}

/** What the sandbox holds for a campaign, by status: the truth a summary must equal. */
export async function truthOf(db: Db, campaignId: number): Promise<Counts> {
  const r = await db.query<{ status: string; n: number | string }>(
    "select status, count(*) as n from sandbox.campaign_recipients where campaign_id = $1 group by status",
    [campaignId],
  );
  const out = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Counts;
  for (const row of r.rows) out[row.status as keyof Counts] = Number(row.n);
  return out;
}

/** Requests a proxy saw that concern one campaign (its record and its recipients). */
export const requestsFor = (seen: string[], campaignId: number) =>
  seen.filter((s) => new RegExp(`/campaigns/${campaignId}(/|\\?|$)`).test(s));
