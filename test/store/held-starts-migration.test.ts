// Held starts onto the claimed-once timer (timers' 002_campaign_starts): a
// database made by the version before, with starts in every state in
// held.starts, is migrated; each start is then a `campaign-start` timer with
// its number (its old id), state, claim, version, card, times and payload, so
// none is lost and none is sent twice: the runner sends the one due once, and
// settles the one a stopped process left running as unknown without sending
// it. One live start per campaign is the timer's unique index. On PGlite and
// PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HeldStartRunner, type HeldStartWorkspace } from "../../src/campaigns/held-start-runner.ts";
import type { Db } from "../../src/store/db.ts";
import { CAMPAIGN_START, HeldStarts, type HeldState } from "../../src/store/held-starts.ts";
import { migrate } from "../../src/store/migrate.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { TIMERS_MIGRATIONS, Timers } from "../../src/store/timers.ts";
import { OLD_HELD_MIGRATIONS } from "../fixtures/old-held-starts.ts";
import { openTestDb, storeBackends } from "../helpers/db.ts";

const NOW = new Date("2026-11-29T10:00:00Z");
const min = (m: number) => new Date(NOW.getTime() + m * 60_000);
const STATES: HeldState[] = [
  "held",
  "running",
  "sent",
  "failed",
  "unknown",
  "skipped",
  "cancelled",
  "asked",
  "refused",
];

describe.each(storeBackends())("held starts moved onto the timer, on %s", (backend) => {
  let db: Db;
  /** A start set now by U0CAL, at 10:45. */
  const hold = (workspace: string, campaignId: number) =>
    new HeldStarts(db, workspace).hold({
      campaignId,
      campaignName: `Campaign ${campaignId}`,
      at: min(45),
      requestedBy: "U0CAL",
      via: "slack",
      reason: "asked",
      now: NOW,
    });
  /** The rows as the old version wrote them, by id. */
  const old = new Map<number, Record<string, unknown>>();

  beforeAll(async () => {
    db = await openTestDb(backend);
    // The database as the version before left it: schema `held`, and the timer's first migration only.
    await migrate(db, OLD_HELD_MIGRATIONS);
    await migrate(db, { schema: "timers", migrations: TIMERS_MIGRATIONS.migrations.slice(0, 1) });
    // A message sent later already numbered 1 in TA: another kind's numbers are not touched.
    await new Timers(db, "TA", "message.later").set({
      at: min(30),
      setBy: "U0ANA",
      via: "slack",
      payload: { text: "hi" },
      now: NOW,
    });
    // One start in each state in workspace TA (ids 1–9), one held in TB (id 10), one cancelled in TA (id 11).
    const rows = [
      ...STATES.map((state, i) => ({ ws: "TA", campaign: 100 + i, state })),
      { ws: "TB", campaign: 100, state: "held" as const },
      { ws: "TA", campaign: 100, state: "cancelled" as const },
    ];
    for (const [i, r] of rows.entries()) {
      const res = await db.query<Record<string, unknown>>(
        `insert into held.starts (workspace, campaign_id, campaign_name, at, requested_by, via, reason, state,
           detail, decided_by, channel, ts, claimed_by, created_at, updated_at, version, ran_at)
         values ($1, $2, $3, $4, 'U0ANA', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) returning *`,
        [
          r.ws,
          r.campaign,
          `Campaign ${r.campaign} “${r.state}”`,
          r.state === "held" ? min(-1) : min(-90 + i),
          i % 2 ? "shell" : "slack",
          ["asked", "quiet", "created"][i % 3],
          r.state,
          ["failed", "skipped", "refused", "unknown"].includes(r.state) ? `why ${r.state}` : null,
          r.state === "cancelled" ? "U0BOB" : null,
          `C${i}`,
          `${i}.000${i}`,
          r.state === "running" || r.state === "sent" ? "gone-replica:1:abc" : null,
          min(-120),
          min(-100 + i),
          i + 1,
          r.state === "sent" ? min(-80) : null,
        ],
      );
      const row = res.rows[0]!;
      old.set(Number(row.id), row);
    }
    await migrateStore(db);
  }, 120_000);
  afterAll(() => db?.close());

  it("every start is a campaign-start timer with its number, state, claim, version, card, times and payload", async () => {
    expect(old.size).toBe(11);
    for (const [id, r] of old) {
      const ws = String(r.workspace);
      const s = await new HeldStarts(db, ws).get(id);
      expect(s, `start ${id}`).toEqual({
        id,
        workspace: ws,
        campaignId: r.campaign_id,
        campaignName: r.campaign_name,
        at: new Date(r.at as string),
        requestedBy: "U0ANA",
        via: r.via,
        reason: r.reason,
        state: r.state,
        detail: r.detail ?? undefined,
        decidedBy: r.decided_by ?? undefined,
        channel: r.channel,
        ts: r.ts,
        claimedBy: r.claimed_by ?? undefined,
        updatedAt: new Date(r.updated_at as string),
        version: r.version,
        ranAt: r.ran_at ? new Date(r.ran_at as string) : undefined,
      });
      // The timer's own words: held is waiting, sent is done.
      const t = await new Timers(db, ws, CAMPAIGN_START).get(id);
      expect(t?.state).toBe(r.state === "held" ? "waiting" : r.state === "sent" ? "done" : r.state);
      expect(t?.createdAt).toEqual(new Date(r.created_at as string));
    }
    const counts = await db.query<{ kind: string; n: number }>(
      "select kind, count(*)::integer as n from timers.due group by kind order by kind",
    );
    expect(counts.rows).toEqual([
      { kind: CAMPAIGN_START, n: 11 },
      { kind: "message.later", n: 1 },
    ]);
  });

  it("held.starts is gone; a new start is numbered after the workspace's last, another kind's numbers untouched", async () => {
    expect((await db.query("select to_regclass('held.starts') as t")).rows[0]).toEqual({ t: null });
    expect((await hold("TA", 500))?.id).toBe(12);
    expect((await hold("TB", 500))?.id).toBe(11);
    const later = await new Timers(db, "TA", "message.later").set({
      at: min(30),
      setBy: "U0ANA",
      via: "slack",
      payload: { text: "again" },
      now: NOW,
    });
    expect(later.number).toBe(2);
  });

  it("one live start per campaign: a held or asked one is moved, a running one refuses, a finished one leaves room", async () => {
    const ta = new HeldStarts(db, "TA");
    // Campaign 100 (id 1) is held: moved, same number, its version bumped.
    expect(await hold("TA", 100)).toMatchObject({ id: 1, state: "held", at: min(45), version: 2 });
    // Campaign 101 (id 2) is running: not moved, nothing new.
    expect(await hold("TA", 101)).toBeUndefined();
    // Campaign 107 (id 8) was asked: moved back to held.
    expect(await hold("TA", 107)).toMatchObject({ id: 8, state: "held", requestedBy: "U0CAL" });
    // Campaign 102 (id 3) was sent: a new start, numbered next.
    expect(await hold("TA", 102)).toMatchObject({ id: 13, state: "held" });
    expect((await ta.ofCampaign(102))?.id).toBe(13);
    // Two set at once for a campaign with none live: one start.
    const [x, y] = await Promise.all([hold("TA", 103), hold("TA", 103)]);
    const live = await db.query(
      `select number from timers.due where kind = $1 and workspace = 'TA' and payload->>'campaignId' = '103'
         and state in ('waiting', 'asked', 'running')`,
      [CAMPAIGN_START],
    );
    expect(live.rows).toHaveLength(1);
    expect([x?.id, y?.id]).toContain(Number((live.rows[0] as { number: number }).number));
    // The index itself: a second live row of one campaign is refused by the database.
    await expect(
      db.query(
        `insert into timers.due (workspace, kind, number, at, set_by, via, payload, created_at, updated_at)
         values ('TA', $1, 999, now(), 'U0', 'slack', '{"campaignId": 103}', now(), now())`,
        [CAMPAIGN_START],
      ),
    ).rejects.toThrow(/due_campaign_start_live|duplicate key/);
  });

  it("the runner sends the due start once and settles the one a stopped process left running, never sending it", async () => {
    const started: Array<[string, number]> = [];
    const ws = (workspace: string): HeldStartWorkspace => ({
      core: {
        startHeld: async (_actor, campaignId) => {
          started.push([workspace, campaignId]);
          return { kind: "sent", campaign: { id: campaignId, name: "x", status: "running" } };
        },
        audit: async () => {},
      },
      rules: {},
    });
    const runner = (id: string) =>
      new HeldStartRunner({
        db,
        forWorkspace: async (w) => ws(w),
        now: () => min(2),
        workerId: id,
        liveWorkers: async () => new Set([id]),
      });
    const [a, b] = await Promise.all([runner("one").pass(), runner("two").pass()]);
    // TB's start 10 was due (held at 09:59): sent by one of the two runners only.
    expect(started).toEqual([["TB", 100]]);
    expect([...a, ...b].filter((o) => o === "sent")).toEqual(["sent"]);
    expect((await new HeldStarts(db, "TB").get(10))?.state).toBe("sent");
    // TA's running start (id 2), claimed by a replica that is gone: unknown, not sent.
    expect(await new HeldStarts(db, "TA").get(2)).toMatchObject({
      state: "unknown",
      detail: "Switchboard stopped while starting it",
    });
    expect(started.filter(([w]) => w === "TA")).toEqual([]);
  });

  it("a new database has no schema held, and the timer's index", async () => {
    const fresh = await openTestDb(backend);
    try {
      await migrateStore(fresh);
      expect((await fresh.query("select to_regnamespace('held') as s")).rows[0]).toEqual({ s: null });
      const idx = await fresh.query(
        "select indexname from pg_indexes where schemaname = 'timers' and indexname = 'due_campaign_start_live'",
      );
      expect(idx.rows).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });
});
