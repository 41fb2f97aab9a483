// Runs of Workflow Builder steps (schema `steps`): one row per
// function_execution_id, so an execution Slack delivers twice runs its write
// once. The first delivery claims the row (insert … on conflict do nothing);
// the outcome is stored before Slack is told, so a later delivery can repeat
// the same answer instead of the work.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";
import { storable, storableJson } from "./text.ts";

export const STEPS_MIGRATIONS: MigrationSet = {
  schema: "steps",
  migrations: [
    {
      id: "001_step_runs",
      sql: `
create table steps.runs (
  execution_id text primary key,
  callback_id text not null,
  workflow_execution_id text,
  actor text,
  state text not null default 'running' check (state in ('running', 'done', 'failed')),
  outputs jsonb,
  error text,
  started_at timestamptz not null default now(),
  finished_at timestamptz
)
`,
    },
    {
      // Slack's function_execution_id is unique across workspaces: it stays the
      // key, and each run says whose it is (read and written per workspace).
      id: "002_workspace",
      sql: `
alter table steps.runs add column workspace text not null default 'env'
;
alter table steps.runs alter column workspace drop default
`,
    },
  ],
};

export type StepRunState = "running" | "done" | "failed";

export interface StepRun {
  executionId: string;
  workspace: WorkspaceId;
  callbackId: string;
  workflowExecutionId?: string;
  actor?: string;
  state: StepRunState;
  outputs?: Record<string, unknown>;
  error?: string;
}

type Row = Record<string, unknown>;
const toRun = (r: Row): StepRun => ({
  executionId: String(r.execution_id),
  workspace: String(r.workspace),
  callbackId: String(r.callback_id),
  workflowExecutionId: (r.workflow_execution_id as string | null) ?? undefined,
  actor: (r.actor as string | null) ?? undefined,
  state: r.state as StepRunState,
  outputs: (typeof r.outputs === "string" ? JSON.parse(r.outputs) : r.outputs) ?? undefined,
  error: (r.error as string | null) ?? undefined,
});

/** Step runs, one row per function_execution_id. */
export class StepRunStore extends PerWorkspace {
  // A run of another workspace is not found here: every statement names the workspace.
  /** Records the start of a run; false when this execution was already claimed. */
  async claim(
    run: Pick<StepRun, "executionId" | "callbackId" | "workflowExecutionId" | "actor">,
  ): Promise<boolean> {
    return this.tookOne(
      `insert into steps.runs (execution_id, callback_id, workflow_execution_id, actor, workspace)
       values ($1, $2, $3, $4, $5)
       on conflict (execution_id) do nothing
       returning execution_id`,
      [
        run.executionId,
        run.callbackId,
        run.workflowExecutionId ?? null,
        run.actor === undefined ? null : storable(run.actor),
        this.workspace,
      ],
    );
  }

  async get(executionId: string): Promise<StepRun | undefined> {
    const r = await dbOf(this).query("select * from steps.runs where execution_id = $1 and workspace = $2", [
      executionId,
      this.workspace,
    ]);
    return r.rows[0] ? toRun(r.rows[0] as Row) : undefined;
  }

  /** The outcome of a claimed run: its outputs, or the error the workflow author was given. */
  async finish(
    executionId: string,
    outcome: { state: "done"; outputs: Record<string, unknown> } | { state: "failed"; error: string },
  ): Promise<void> {
    await dbOf(this).query(
      `update steps.runs set state = $2, outputs = $3, error = $4, finished_at = now()
       where execution_id = $1 and workspace = $5 and state = 'running'`,
      [
        executionId,
        outcome.state,
        outcome.state === "done" ? storableJson(outcome.outputs) : null,
        outcome.state === "failed" ? storable(outcome.error) : null,
        this.workspace,
      ],
    );
  }

  /**
   * The runs an earlier process left running (a crash between the claim and the
   * answer): those started more than `olderThanMs` ago (a younger one may be a
   * live replica's). This workspace's.
   */
  async interrupted(olderThanMs: number): Promise<StepRun[]> {
    return interruptedRuns(dbOf(this), olderThanMs, this.workspace);
  }

  /** interrupted() of every workspace (the start), each run with its `workspace`. */
  static interruptedAll(db: Queryable, olderThanMs: number): Promise<StepRun[]> {
    return interruptedRuns(db, olderThanMs, null);
  }
}

async function interruptedRuns(
  db: Queryable,
  olderThanMs: number,
  workspace: WorkspaceId | null,
): Promise<StepRun[]> {
  const r = await db.query(
    `select * from steps.runs where state = 'running' and started_at < now() - make_interval(secs => $1)
       and ($2::text is null or workspace = $2)`,
    [olderThanMs / 1000, workspace],
  );
  return r.rows.map((row) => toRun(row as Row));
}
