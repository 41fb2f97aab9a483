// At start: Workflow steps an earlier process left running, ended in words.
import type { webApi } from "@slack/bolt";
import type { WorkspaceWork } from "../context.ts";
import { slackCode } from "../io/slack-errors.ts";
import { interruptedWords, type StepDef } from "../listeners/functions/run.ts";

/**
 * At start: steps an earlier process left running (stopped by a crash between
 * the claim and the answer) are settled: the execution is ended with
 * functions.completeError in words, when Slack still lets it be ended, and
 * the run is stored failed with those words, so a redelivery repeats them
 * instead of hanging. Nothing is run again here. Only runs older than
 * `graceMs` are settled: a younger one may be a live replica's, which ends it
 * within the API's deadline (the caller settles again once that has passed).
 */
export async function settleInterruptedSteps(
  deps: WorkspaceWork,
  client: webApi.WebClient,
  steps: StepDef[],
  graceMs: number,
): Promise<number> {
  const store = deps.stores?.stepRuns;
  if (!store) return 0;
  const runs = await store.interrupted(graceMs);
  for (const run of runs) {
    const writes = steps.find((s) => s.callbackId === run.callbackId)?.writes ?? true;
    const error = interruptedWords(writes);
    await store.finish(run.executionId, { state: "failed", error });
    const log = deps.logger.child({ step: run.callbackId, executionId: run.executionId });
    try {
      await client.functions.completeError({ function_execution_id: run.executionId, error });
      log.warn("workflow step interrupted by a restart: ended in words");
    } catch (err) {
      // Ended already, or too old for Slack: the stored words answer any redelivery.
      const code = slackCode(err);
      log.warn({ code }, "workflow step interrupted by a restart: Slack would not end it");
    }
  }
  return runs.length;
}
