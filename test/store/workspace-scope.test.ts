// Every record belongs to a workspace (issue 19 §4, docs/workspaces.md): what
// one workspace's stores wrote is not seen, changed or removed through
// another's (a forged id of another workspace is "not found" and writes
// nothing); the start-up's cross-workspace functions say each row's
// workspace; and purgeWorkspace() removes every table's rows of one
// workspace, the catalog checked so that a new table cannot be forgotten.
import { describe, expect, it } from "vitest";
import type { WorkspaceId } from "../../src/domain/workspace.ts";
import { Approvals } from "../../src/store/approvals.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { AutomationStore } from "../../src/store/automations.ts";
import { CampaignCards } from "../../src/store/campaign-cards.ts";
import { CampaignAudiences, TestPhones } from "../../src/store/campaigns.ts";
import { ChannelNames } from "../../src/store/channels.ts";
import { CommandsInFlight, takeInterruptedCommands } from "../../src/store/commands-in-flight.ts";
import { Confirmations } from "../../src/store/confirmations.ts";
import { SeenEvents } from "../../src/store/events.ts";
import { HeldStarts } from "../../src/store/held-starts.ts";
import { HomeCounts } from "../../src/store/home-counts.ts";
import { ImportStore } from "../../src/store/imports.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import { MediaStore, mediaFile } from "../../src/store/media.ts";
import { STORE_MIGRATIONS } from "../../src/store/migrations.ts";
import { OwnSends, TestSends } from "../../src/store/own-sends.ts";
import { ProgressStore } from "../../src/store/progress.ts";
import { purgeWorkspace, WORKSPACE_TABLES } from "../../src/store/purge.ts";
import { ReportStore } from "../../src/store/reports.ts";
import { SavedReplies } from "../../src/store/saved-replies.ts";
import { StepRunStore } from "../../src/store/steps.ts";
import { Timers } from "../../src/store/timers.ts";
import { UndeliveredOutcomes } from "../../src/store/undelivered.ts";
import { storeBackends, type TestDb, useStoreDb } from "../helpers/db.ts";

const A: WorkspaceId = "T0AAAAAAA";
const B: WorkspaceId = "T0BBBBBBB";
const now = new Date("2026-03-02T09:00:00Z");
const later = new Date("2026-03-05T09:00:00Z");

async function* bytes(): AsyncGenerator<Uint8Array> {
  yield Buffer.from("a picture");
}

/** The whole row of a table, to see that a refused call wrote nothing. */
const rowOf = async (db: TestDb, sql: string, params: unknown[]) =>
  JSON.stringify((await db.query(sql, params)).rows);

describe.each(storeBackends())("workspaces kept apart on %s", (backend) => {
  const db = useStoreDb(backend);

  it("confirmations: another workspace's id is not found, not claimed, not dismissed, and nothing is written", async () => {
    const a = new Confirmations(db(), A);
    const b = new Confirmations(db(), B);
    const c = await a.create({
      actor: "U0ANA",
      command: { id: "tag.delete", raw: { id: "1" }, line: "tag delete 1" },
      ttlMs: 60_000,
    });
    const before = await rowOf(db(), "select * from switchboard.confirmations where id = $1", [c.id]);
    // A forged button of workspace B naming A's confirmation (the same person id, even).
    expect(await b.get(c.id)).toBeUndefined();
    expect(await b.claim(c.id, "U0ANA")).toBeUndefined();
    expect(await b.dismiss(c.id, "U0ANA")).toBeUndefined();
    await b.keepReplyTarget(c.id, { user: "U0ANA", at: now.toISOString() });
    await b.finish(c.id, "done", { text: "forged" });
    expect(await b.markReplyTold(c.id)).toBe(false);
    expect(await rowOf(db(), "select * from switchboard.confirmations where id = $1", [c.id])).toBe(before);
    // Through its own workspace it works.
    expect((await a.claim(c.id, "U0ANA"))?.state).toBe("running");
    expect(await b.settleInterrupted()).toBe(0);
    expect((await a.get(c.id))?.state).toBe("running");
    const settled = await Confirmations.settleInterruptedAll(db());
    expect(settled).toContainEqual({ id: c.id, workspace: A });
    expect((await a.get(c.id))?.state).toBe("unknown");
  });

  it("audit entries, channel names and commands in flight are each workspace's", async () => {
    const entry = {
      at: now,
      actor: "U0ANA",
      via: "slack" as const,
      command: "campaign 7 send",
      operation: "sendCampaign",
      ok: true,
    };
    await new AuditLog(db(), A).record(entry);
    expect(await new AuditLog(db(), B).list()).toEqual([]);
    expect(await new AuditLog(db(), B).lastLaunch(7)).toBeUndefined();
    expect((await new AuditLog(db(), A).lastLaunch(7))?.actor).toBe("U0ANA");

    await new ChannelNames(db(), A).set(1, "Main line", "U0ANA");
    expect(await new ChannelNames(db(), B).name(1)).toBeUndefined();
    // Channel #1 of B's account is another channel: named apart.
    expect(await new ChannelNames(db(), B).set(1, "Support", "U0BOB")).toBeUndefined();
    await new ChannelNames(db(), B).seed(new Map([[2, "Sales"]]), "settings");
    expect(await new ChannelNames(db(), A).all()).toEqual(new Map([[1, "Main line"]]));

    const inFlightA = new CommandsInFlight(db(), A);
    const id = await inFlightA.started({ owner: "old-process", userId: "U0ANA", line: "report now" });
    await new CommandsInFlight(db(), B).ended(id);
    expect(await new CommandsInFlight(db(), B).takeInterrupted("this-process", 0)).toEqual([]);
    const taken = await takeInterruptedCommands(db(), "this-process", 0);
    expect(taken.map((c) => [c.id, c.workspace])).toEqual([[id, A]]);
  });

  it("imports: the same upload is previewed once per workspace, and B cannot read, choose, run or settle A's", async () => {
    const a = new ImportStore(db(), A);
    const b = new ImportStore(db(), B);
    const upload = {
      fileId: "F0SAME",
      contentHash: "h1",
      fileName: "people.csv",
      userId: "U0ANA",
      headers: ["phone"],
      updateExisting: false,
    };
    const p = (await a.create(upload))!;
    expect(p.workspace).toBe(A);
    expect(await a.create(upload)).toBeUndefined();
    expect((await b.create(upload))?.workspace).toBe(B);
    const before = await rowOf(db(), "select * from imports.pending where id = $1", [p.id]);
    expect(await b.get(p.id)).toBeUndefined();
    expect(await b.update(p.id, { updateExisting: true })).toBeUndefined();
    expect(await b.update(p.id, { channel: "C0X", messageTs: "1.1" })).toBeUndefined();
    expect(await b.claim(p.id, "U0BOB")).toBeUndefined();
    expect(await b.discard(p.id, "U0BOB")).toBeUndefined();
    await b.finish(p.id, "failed", { error: "forged" });
    expect(await rowOf(db(), "select * from imports.pending where id = $1", [p.id])).toBe(before);
    expect((await a.claim(p.id, "U0ANA"))?.state).toBe("running");
    expect(await b.settleInterrupted()).toEqual([]);
    const settled = await ImportStore.settleInterruptedAll(db());
    expect(settled.map((s) => [s.id, s.workspace])).toContainEqual([p.id, A]);
  });

  it("inboxes, threads, mirrored messages, replies and routes are each workspace's", async () => {
    const a = new InboxStore(db(), A);
    const b = new InboxStore(db(), B);
    await a.setInbox("C0DESK", "all", "U0ANA", now);
    expect(await b.inbox("C0DESK")).toBeUndefined();
    expect(await b.inboxes()).toEqual([]);
    expect(await b.removeInbox("C0DESK")).toBe(false);
    expect(await b.claimInbox("C0DESK", "w", now, later)).toBeUndefined();
    expect(await b.renewLease("C0DESK", "w", later)).toBe(false);
    expect((await a.inbox("C0DESK"))?.createdBy).toBe("U0ANA");

    await a.ensureThread("C0DESK", 5, now);
    await a.updateThread("C0DESK", 5, { threadTs: "5.5", lastMessageAt: now, lastDirection: "inbound" });
    expect(await b.thread("C0DESK", 5)).toBeUndefined();
    expect(await b.threadByTs("C0DESK", "5.5")).toBeUndefined();
    expect(await b.waiting()).toEqual([]);
    expect(await b.desk({ limit: 10 })).toEqual([]);
    expect(await b.assign("C0DESK", 5, "U0BOB", "U0BOB", now, true)).toEqual({
      changed: false,
      holder: null,
    });
    expect(await b.setDeskState("C0DESK", 5, "resolved", "U0BOB", now)).toBe(false);
    await b.updateThread("C0DESK", 5, { lastText: "forged" });
    const thread = (await a.thread("C0DESK", 5))!;
    expect(thread).toMatchObject({ assignee: null, deskState: "open", lastText: null });

    // Chat user 5 of B's account is another person: routed and mirrored apart.
    expect(await a.takeRoute(5, "C0DESK", undefined, now)).toBe(true);
    expect(await b.routeOf(5)).toBeUndefined();
    expect(await b.takeRoute(5, "C0OTHER", undefined, now)).toBe(true);
    expect(await a.routeOf(5)).toBe("C0DESK");
    expect(await a.claimMessage("C0DESK", 77, 5, "inbound", now)).toBe(true);
    expect(await b.mirrorState("C0DESK", 77)).toEqual({ state: "none" });
    expect(await b.claimMessage("C0DESK", 77, 5, "inbound", now)).toBe(true);

    expect(
      await a.claimReply({ channel: "C0DESK", messageTs: "9.9", chatUserId: 5, userId: "U0ANA", now }),
    ).toBe(true);
    await b.finishReply("C0DESK", "9.9", "sent", 1);
    expect(await a.repliesSent("C0DESK")).toBe(0);
    expect(await b.settleSendingReplies(later)).toEqual([]);
    const settled = await InboxStore.settleSendingRepliesAll(db(), later);
    expect(settled.map((r) => [r.messageTs, r.workspace])).toContainEqual(["9.9", A]);
  });

  it("media: a file is its workspace's, and its address serves it whoever asks", async () => {
    const a = new MediaStore(db(), A);
    const b = new MediaStore(db(), B);
    const f = await a.put({ name: "p.png", contentType: "image/png", now, expiresAt: later }, bytes());
    expect(await b.get(f.id, now)).toBeUndefined();
    expect(await b.chunk(f.id, 0)).toBeUndefined();
    await b.remove(f.id);
    expect(await b.removeExpired(new Date("2027-01-01T00:00:00Z"))).toBe(0);
    expect((await mediaFile(db(), f.id, now))?.workspace).toBe(A);
    expect(Buffer.from((await a.chunk(f.id, 0))!).toString()).toBe("a picture");
  });

  it("live progress, report schedules and runs, and step runs are each workspace's", async () => {
    const pa = new ProgressStore(db(), A);
    const pb = new ProgressStore(db(), B);
    await pa.track({ channel: "C0LIVE", ts: "1.1", campaignId: 12, intro: "Campaign #12 launched" }, now);
    expect(await pb.get("C0LIVE", "1.1")).toBeUndefined();
    expect(await pb.live()).toEqual([]);
    expect(await pb.claimDue(12, "w", later, later)).toEqual([]);
    expect(await pb.polled({ channel: "C0LIVE", ts: "1.1" }, { nextPollAt: later, failures: 9, now })).toBe(
      false,
    );
    expect((await pa.get("C0LIVE", "1.1"))?.failures).toBe(0);

    const ra = new ReportStore(db(), A);
    const rb = new ReportStore(db(), B);
    const s = await ra.createSchedule(
      {
        channel: "C0REP",
        target: "all",
        cron: "0 9 * * *",
        tz: "UTC",
        description: "every day",
        createdBy: "U0ANA",
      },
      now,
    );
    expect(s.workspace).toBe(A);
    expect(await rb.getSchedule(s.id)).toBeUndefined();
    expect(await rb.listSchedules()).toEqual([]);
    expect(await rb.deleteSchedule(s.id, now)).toBeUndefined();
    expect(await rb.claimRun(s.id, now, { worker: "w", now, leaseMs: 60_000, late: false })).toBeUndefined();
    expect(await rb.getRun(s.id, now)).toBeUndefined();
    expect(
      (await ra.claimRun(s.id, now, { worker: "w", now, leaseMs: 60_000, late: false }))?.workspace,
    ).toBe(A);
    expect(await rb.markPosting(s.id, now, "w", now)).toBe(false);
    expect((await ra.getRun(s.id, now))?.state).toBe("claimed");
    expect((await ReportStore.liveSchedulesAll(db())).find((x) => x.id === s.id)?.workspace).toBe(A);

    const sa = new StepRunStore(db(), A);
    const sb = new StepRunStore(db(), B);
    expect(await sa.claim({ executionId: "Fx0SCOPE", callbackId: "send_message" })).toBe(true);
    // Slack's execution ids are unique across workspaces: B's claim of the same id is refused too.
    expect(await sb.claim({ executionId: "Fx0SCOPE", callbackId: "send_message" })).toBe(false);
    expect(await sb.get("Fx0SCOPE")).toBeUndefined();
    await sb.finish("Fx0SCOPE", { state: "failed", error: "forged" });
    expect((await sa.get("Fx0SCOPE"))?.state).toBe("running");
    expect(await sb.interrupted(0)).toEqual([]);
    expect(
      (await StepRunStore.interruptedAll(db(), 0)).find((r) => r.executionId === "Fx0SCOPE")?.workspace,
    ).toBe(A);
  });
});

describe("purgeWorkspace", () => {
  const db = useStoreDb();

  /** Every table of Switchboard's schemas but `workspaces` (Installations') and the migration lists. */
  const storeTables = async () => {
    const schemas = STORE_MIGRATIONS.map((s) => s.schema).filter((s) => s !== "workspaces");
    const { rows } = await db().query<{ name: string }>(
      `select table_schema || '.' || table_name as name from information_schema.tables
       where table_schema = any($1::text[]) and table_name <> 'migrations' and table_type = 'BASE TABLE'
       order by 1`,
      [schemas],
    );
    return rows.map((r) => r.name);
  };

  /** Tables whose rows go with a listed table's (a foreign key with on delete cascade). */
  const cascadeChildren = async () => {
    const { rows } = await db().query<{ child: string; parent: string }>(
      `select cn.nspname || '.' || c.relname as child, pn.nspname || '.' || p.relname as parent
       from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_namespace cn on cn.oid = c.relnamespace
       join pg_class p on p.oid = k.confrelid join pg_namespace pn on pn.oid = p.relnamespace
       where k.contype = 'f' and k.confdeltype = 'c'`,
    );
    return new Map(rows.filter((r) => WORKSPACE_TABLES.includes(r.parent)).map((r) => [r.child, r.parent]));
  };

  /** The deployment's tables, not a workspace's, each with why (nothing of a customer's in them). */
  const DEPLOYMENT_TABLES: Record<string, string> = {
    "rate_budget.buckets":
      "an API key's budget, shared by every workspace and replica using the key (by the key's hash)",
    "replicas.workspace_versions":
      "a workspace's change counter: kept after a purge, so a replica never takes an older state for new",
    "slack.oauth_states": "an install in progress, before any workspace (hashed, 10 minutes)",
    "replicas.live": "a running replica's heartbeat: what it left in flight is settled once it stops",
  };

  it("every table of Switchboard's schemas has a workspace column and is purged, or goes with its parent", async () => {
    const tables = await storeTables();
    expect(tables.length).toBeGreaterThan(10);
    const { rows } = await db().query<{ name: string }>(
      `select table_schema || '.' || table_name as name from information_schema.columns
       where column_name = 'workspace' and is_nullable = 'NO' and column_default is null`,
    );
    const withColumn = new Set(rows.map((r) => r.name));
    const children = await cascadeChildren();
    const uncovered = tables.filter(
      (t) =>
        !(withColumn.has(t) && WORKSPACE_TABLES.includes(t)) && !children.has(t) && !(t in DEPLOYMENT_TABLES),
    );
    // Each deployment table exists (the list cannot go stale).
    expect(Object.keys(DEPLOYMENT_TABLES).filter((t) => !tables.includes(t))).toEqual([]);
    expect(uncovered).toEqual([]);
    expect([...children.keys()]).toEqual(["media.chunks"]);
    // And nothing listed that is not a table of those schemas.
    expect(WORKSPACE_TABLES.filter((t) => !tables.includes(t))).toEqual([]);
  });

  /** One row in every table, for a workspace. */
  async function writeEverything(ws: WorkspaceId) {
    await new AuditLog(db(), ws).record({
      at: now,
      actor: "U0",
      via: "slack",
      command: "tags",
      operation: "x",
      ok: true,
    });
    const confirmations = new Confirmations(db(), ws);
    await confirmations.create({
      actor: "U0",
      command: { id: "tag.delete", raw: {}, line: "tag delete 1" },
      ttlMs: 1,
    });
    await new CommandsInFlight(db(), ws).started({ owner: "p", userId: "U0", line: "tags" });
    await new ChannelNames(db(), ws).set(1, "Main", "U0");
    await (await SeenEvents.open(db())).claim(`Ev0${ws}`, ws);
    await new ImportStore(db(), ws).create({
      fileId: "F0",
      contentHash: "h",
      fileName: "a.csv",
      userId: "U0",
      headers: [],
      updateExisting: false,
    });
    const inbox = new InboxStore(db(), ws);
    await inbox.away.claim({ conversationId: 7, periodStart: now, channel: "C1", chatUserId: 70 }, "w1", now);
    await inbox.setInbox("C0", "all", "U0", now);
    await inbox.ensureThread("C0", 1, now);
    await inbox.claimMessage("C0", 1, 1, "inbound", now);
    await inbox.claimReply({ channel: "C0", messageTs: "1.1", chatUserId: 1, userId: "U0", now });
    await inbox.takeRoute(1, "C0", undefined, now);
    // Reply targets and the desk's report (issue 29 §2, §5): targets, a clock, a state change.
    const { targets } = await inbox.clocks.setTargets(
      "C0",
      { firstSecs: 60, nextSecs: null, here: false },
      "U0",
      now,
    );
    await inbox.clocks.customerWrote("C0", 1, now, { first: false, targets, clock: undefined });
    await inbox.setDeskState("C0", 1, "resolved", "U0", now);
    await new MediaStore(db(), ws).put(
      { name: "p.png", contentType: "image/png", now, expiresAt: later },
      bytes(),
    );
    await new OwnSends(db(), ws).record(1, "U0", "form", now);
    await new TestSends(db(), ws).take("U0", now, 10, 3_600_000);
    await new SavedReplies(db(), ws).add("Hello", "Hi {first_name|there}", "U0", now);
    await new ProgressStore(db(), ws).track({ channel: "C0", ts: "1.1", campaignId: 1, intro: "x" }, now);
    const reports = new ReportStore(db(), ws);
    const s = await reports.createSchedule(
      { channel: "C0", target: "all", cron: "0 9 * * *", tz: "UTC", description: "d", createdBy: "U0" },
      now,
    );
    await reports.claimRun(s.id, now, { worker: "w", now, leaseMs: 1000, late: false });
    await reports.markPosting(s.id, now, "w", now);
    await reports.markPosted(s.id, now, "w", now, [{ campaignId: 1, counts: { sent: 1 } as never }]);
    await new StepRunStore(db(), ws).claim({ executionId: `Fx0${ws}`, callbackId: "c" });
    await new CampaignAudiences(db(), ws).record(1, "c", { groupIds: [1], contactIds: [] });
    await new TestPhones(db(), ws).set("U0", "+14155550123");
    await new CampaignCards(db(), ws).posted({ campaignId: 1, channel: "C0", ts: "1.1", role: "live" }, now);
    await new UndeliveredOutcomes(db(), ws).keep("U0", "Done: campaign sent.");
    await new HeldStarts(db(), ws).hold({
      campaignId: 1,
      campaignName: "c",
      at: new Date(),
      requestedBy: "U0",
      via: "slack",
      reason: "asked",
      now: new Date(),
    });
    const approval = await new Approvals(db(), ws).request({
      campaignId: 1,
      requestedBy: "U0",
      at: now,
      card: { name: "c", message: "", audience: "", channel: "", start: "", approvers: [] },
    });
    await new Approvals(db(), ws).addCard(approval.id, "C0", "1.2");
    await new HomeCounts(db(), ws).keep({ campaigns: [], more: 0 }, new Date());
    await new Timers(db(), ws, "message.later").set({
      at: new Date(),
      setBy: "U0",
      via: "slack",
      payload: { text: "x" },
      now: new Date(),
    });
    const hooks = new AutomationStore(db(), ws);
    const hook = await hooks.add({
      event: "campaign.started",
      kind: "endpoint",
      urlMasked: "https://example.com/…",
      inbox: null,
      by: "U0",
      now,
      seal: () => ({ url: "sealed", secret: "sealed" }),
    });
    await hooks.addDelivery(hook, "evt_1", "campaign.started", "{}", now);
  }

  const counts = async (ws: WorkspaceId) => {
    const out: Record<string, number> = {};
    for (const t of WORKSPACE_TABLES) {
      const { rows } = await db().query<{ n: number }>(
        `select count(*)::int as n from ${t} where workspace = $1`,
        [ws],
      );
      out[t] = rows[0]!.n;
    }
    const { rows } = await db().query<{ n: number }>(
      "select count(*)::int as n from media.chunks c join media.files f on f.id = c.file_id where f.workspace = $1",
      [ws],
    );
    out["media.chunks"] = rows[0]!.n;
    return out;
  };

  it("removes every record of one workspace, in every table, and leaves the other's", async () => {
    await writeEverything(A);
    await writeEverything(B);
    const before = await counts(A);
    // The check covers every table: each holds a row of the workspace before the purge.
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
    const { rows } = await db().query<{ n: number }>("select count(*)::int as n from media.chunks");
    const chunksBefore = rows[0]!.n;

    const removed = await purgeWorkspace(db(), A);
    expect(removed["inbox.threads"]).toBe(1);
    expect(Object.values(await counts(A)).every((n) => n === 0)).toBe(true);
    expect(await counts(B)).toEqual(before);
    expect((await db().query<{ n: number }>("select count(*)::int as n from media.chunks")).rows[0]!.n).toBe(
      chunksBefore - before["media.chunks"]!,
    );
  });
});
