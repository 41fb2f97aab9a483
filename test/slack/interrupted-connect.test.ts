// An interrupted `/sb connect` (issue 27 §4): a workspace installed but not
// connected has its command left in flight by a killed process; the next
// start tells the person like any other command and clears the row: at once
// on the embedded database; on PostgreSQL as soon as no live replica holds it
// (each replica's heartbeat in `replicas.live`), not minutes later.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SlackApp, startSlackApp } from "../../src/slack/app.ts";
import { interruptedText, PROCESS_ID } from "../../src/slack/recovery/interrupted-commands.ts";
import { CommandsInFlight } from "../../src/store/commands-in-flight.ts";
import { LiveReplicas } from "../../src/store/live-replicas.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let s: WorkspacesStack;
let next: SlackApp | undefined;

beforeAll(async () => {
  s = await startWorkspacesStack({ teams: 1, connect: "none" });
}, 60_000);

afterAll(async () => {
  await next?.stop();
  await s?.close();
});

const rowsOf = async (owner: string) =>
  Number(
    (
      await s.db.query<{ n: number }>(
        "select count(*)::int as n from switchboard.commands_in_flight where owner = $1",
        [owner],
      )
    ).rows[0]?.n,
  );

describe("a command of a workspace not connected, left by a killed process", () => {
  it("is told at the next start and its row cleared; a live replica's is left until it stops beating", async () => {
    const ws = s.workspaces[0]!;
    const rows = new CommandsInFlight(s.db, ws.team.teamId);
    // `/sb connect key=…` acked, then the process killed (kill -9): its row stays.
    const killedUrl = s.fake.newResponseUrl();
    await rows.started({
      owner: "a-killed-process",
      userId: ws.user.id,
      line: "connect key=[redacted]",
      responseUrl: killedUrl,
    });
    const postgres = s.db.kind === "postgres";
    const liveUrl = s.fake.newResponseUrl();
    if (postgres) {
      // The killed process beat until a minute ago; another replica is running now, carrying out its own.
      await s.db.query(
        "insert into replicas.live (id, seen_at) values ('a-killed-process', now() - interval '1 minute')",
      );
      await new LiveReplicas(s.db).beat("a-live-replica");
      await rows.started({
        owner: "a-live-replica",
        userId: ws.user.id,
        line: "connect demo",
        responseUrl: liveUrl,
      });
    }

    // The next start (another process on the same database).
    next = await startSlackApp(s.sb, s.config, s.logger, { listen: { port: 0, host: "127.0.0.1" } });
    const told = await s.fake.waitForResponse(killedUrl, 1, 20_000);
    expect(told.body.text).toBe(interruptedText("connect key=[redacted]"));
    expect(await rowsOf("a-killed-process")).toBe(0);
    if (!postgres) return;

    // This replica beats in the database.
    expect(await new LiveReplicas(s.db).live()).toContain(PROCESS_ID);
    // The live replica's command is its own to answer.
    expect(await rowsOf("a-live-replica")).toBe(1);
    expect(s.fake.responsesTo(liveUrl)).toEqual([]);
    // It is killed: it stops beating; within a heartbeat or two its person is told.
    await s.db.query(
      "update replicas.live set seen_at = now() - interval '1 minute' where id = 'a-live-replica'",
    );
    const toldLater = await s.fake.waitForResponse(liveUrl, 1, 30_000);
    expect(toldLater.body.text).toBe(interruptedText("connect demo"));
    expect(await rowsOf("a-live-replica")).toBe(0);
  }, 90_000);
});
