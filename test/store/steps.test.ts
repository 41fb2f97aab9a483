// Workflow Builder step runs (schema `steps`): one claim per
// function_execution_id, even when two claims race; the outcome kept once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateStore } from "../../src/store/migrations.ts";
import { claimStepRun, finishStepRun, getStepRun } from "../../src/store/steps.ts";
import { openTestDb, storeBackends, type TestDb } from "../helpers/db.ts";

describe.each(storeBackends())("step runs on %s", (backend) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(backend);
    await migrateStore(db);
  }, 60_000);
  afterAll(() => db?.close());

  it("claims an execution once, also when two claims race", async () => {
    const run = { executionId: "Fx1", callbackId: "send_message", workflowExecutionId: "Wx1", actor: "U1" };
    const both = await Promise.all([claimStepRun(db, run), claimStepRun(db, run)]);
    expect(both.sort()).toEqual([false, true]);
    expect(await claimStepRun(db, run)).toBe(false);
    expect(await getStepRun(db, "Fx1")).toMatchObject({ ...run, state: "running" });
    const { rows } = await db.query<{ id: string }>("select id from steps.migrations");
    expect(rows.map((r) => r.id)).toEqual(["001_step_runs"]);
  });

  it("keeps the first outcome of a run", async () => {
    await claimStepRun(db, { executionId: "Fx2", callbackId: "upsert_contact" });
    await finishStepRun(db, "Fx2", { state: "done", outputs: { contact_id: "12", created: true } });
    await finishStepRun(db, "Fx2", { state: "failed", error: "late" });
    expect(await getStepRun(db, "Fx2")).toMatchObject({
      state: "done",
      outputs: { contact_id: "12", created: true },
      error: undefined,
    });
    expect(await getStepRun(db, "Fx0")).toBeUndefined();
  });
});
