// Workflow Builder step runs (schema `steps`): one claim per
// function_execution_id, even when two claims race; the outcome kept once.

import { beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { StepRunStore } from "../../src/store/steps.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

describe.each(storeBackends())("step runs on %s", (backend) => {
  const db = useStoreDb(backend);
  let runs: StepRunStore;
  beforeAll(async () => {
    runs = new StepRunStore(db(), ENV_WORKSPACE);
  });

  it("claims an execution once, also when two claims race", async () => {
    const run = { executionId: "Fx1", callbackId: "send_message", workflowExecutionId: "Wx1", actor: "U1" };
    const both = await Promise.all([runs.claim(run), runs.claim(run)]);
    expect(both.sort()).toEqual([false, true]);
    expect(await runs.claim(run)).toBe(false);
    expect(await runs.get("Fx1")).toMatchObject({ ...run, state: "running" });
    const { rows } = await db().query<{ id: string }>("select id from steps.migrations");
    expect(rows.map((r) => r.id)).toEqual(["001_step_runs", "002_workspace"]);
  });

  it("keeps the first outcome of a run", async () => {
    await runs.claim({ executionId: "Fx2", callbackId: "upsert_contact" });
    await runs.finish("Fx2", { state: "done", outputs: { contact_id: "12", created: true } });
    await runs.finish("Fx2", { state: "failed", error: "late" });
    expect(await runs.get("Fx2")).toMatchObject({
      state: "done",
      outputs: { contact_id: "12", created: true },
      error: undefined,
    });
    expect(await runs.get("Fx0")).toBeUndefined();
  });
});
