// What every Workflow Builder step does around its own work: the
// setting WORKFLOW_STEPS, the actor input, the run once per
// function_execution_id (src/store/steps.ts), the API through the core's
// perform() (writers check, audit naming the workflow run and the actor),
// and the outcome to Slack with complete() or fail(), in words a workflow
// author can act on.
import { isApiError, NetworkError } from "../../../api/errors.ts";
import type { MessagingApi } from "../../../api/types.ts";
import { apiErrorReply } from "../../../commands/errors.ts";
import { UserError } from "../../../commands/registry.ts";
import {
  quoted,
  type StepInputs,
  type StepOptions,
  type StepOutputs,
  textInput,
} from "../../../commands/steps.ts";
import type { Actor } from "../../../commands/types.ts";
import type { StepRun } from "../../../store/steps.ts";
import { storable } from "../../../store/text.ts";
import type { Reach } from "../../context.ts";
import { slackCode } from "../../io/slack-errors.ts";
import { withApi } from "../../perform.ts";
import { errorRef } from "../middleware.ts";
import type { FunctionArgs } from "../on.ts";

export interface StepDef {
  /** The function's key in manifest.yml (`functions.<callbackId>`). */
  callbackId: string;
  /** Changes data: needs the actor input, and the writers' check under WORKFLOW_STEPS=writers. */
  writes: boolean;
  run(api: MessagingApi, inputs: StepInputs, opts: StepOptions): Promise<StepOutputs>;
}

type Outcome = { state: "done"; outputs: StepOutputs } | { state: "failed"; error: string };

/** Where runs are kept: the database when the app has one, else this process's memory. */
interface StepRuns {
  claim(run: Pick<StepRun, "executionId" | "callbackId" | "workflowExecutionId" | "actor">): Promise<boolean>;
  get(executionId: string): Promise<StepRun | undefined>;
  finish(executionId: string, outcome: Outcome): Promise<void>;
}

// One map per app (its InFlight), so two apps in one process keep theirs apart.
// state: owned: keyed by the app's work in flight (its InFlight).
const memoryRuns = new WeakMap<object, Map<string, StepRun>>();
function stepRuns(deps: Pick<Reach, "stores" | "work" | "workspace">): StepRuns {
  if (deps.stores) return deps.stores.stepRuns;
  const map = memoryRuns.get(deps.work) ?? new Map<string, StepRun>();
  memoryRuns.set(deps.work, map);
  return {
    claim: async (run) => {
      if (map.has(run.executionId)) return false;
      map.set(run.executionId, { ...run, workspace: deps.workspace, state: "running" });
      return true;
    },
    get: async (id) => map.get(id),
    finish: async (id, outcome) => {
      const run = map.get(id);
      if (run?.state === "running") Object.assign(run, outcome);
    },
  };
}

/** Slack mrkdwn of the core's messages as the plain text a step's error is shown in. */
export function plainWords(text: string): string {
  return text
    .replace(/[*`]/g, "")
    .replace(/<@([A-Z0-9]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}

const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;
/** An error told to Slack and stored is at most this long (an API's answer can echo a whole input). */
const ERROR_CHARS = 700;

/** The words of a failure as told and stored: storable, and at most ERROR_CHARS characters. */
export function errorWords(error: string): string {
  const chars = Array.from(storable(error));
  return chars.length <= ERROR_CHARS ? chars.join("") : `${chars.slice(0, ERROR_CHARS - 1).join("")}…`;
}

export function stepListener(step: StepDef) {
  return async ({ event, inputs, complete, fail, ctx: deps }: FunctionArgs): Promise<void> => {
    const runs = stepRuns(deps);
    const opts: StepOptions = {
      defaultChannelId: deps.core.defaultChannelId,
      defaultCountry: deps.core.defaultCountry,
    };
    const executionId = event.function_execution_id;
    const workflowRun = event.workflow_execution_id;
    const log = deps.logger.child({ step: step.callbackId, executionId, workflowRun });
    const tell = async (outcome: Outcome) => {
      try {
        if (outcome.state === "done") await complete({ outputs: outcome.outputs });
        else await fail({ error: errorWords(outcome.error) });
      } catch (err) {
        // Already completed (an earlier delivery told Slack), or Slack unreachable: logged, not repeated.
        const code = slackCode(err);
        log.warn({ code, err: code ? undefined : String(err) }, "could not tell Slack the step's outcome");
      }
    };
    try {
      // The workspace's effective settings (issue 38 §4), never the deployment's config.
      const mode = deps.settings.workflowSteps;
      if (mode === "off") {
        log.info("workflow step refused: the workspace's Workflow steps are off");
        return tell({
          state: "failed",
          error:
            "Switchboard's workflow steps are turned off in its settings. Nothing was changed. Ask an admin to turn them on (`/sb settings`), or remove this step.",
        });
      }
      const actorId = textInput(inputs, "actor");
      if (step.writes && !actorId)
        return tell({
          state: "failed",
          error:
            'The input actor is empty: in Workflow Builder, set it to "Person who used this workflow" (the Slack user the change is made for). Nothing was changed.',
        });
      if (actorId && !SLACK_USER.test(actorId))
        return tell({
          state: "failed",
          error: `The input actor must be a Slack user (for example "Person who used this workflow"), not ${quoted(actorId)}. Nothing was changed.`,
        });

      const claimed = await runs.claim({
        executionId,
        callbackId: step.callbackId,
        workflowExecutionId: workflowRun,
        actor: actorId,
      });
      if (!claimed) {
        // Slack delivered this execution again: never the work twice; the same answer, when there is one.
        const prior = await runs.get(executionId);
        log.info({ state: prior?.state }, "workflow step delivered again: not run twice");
        if (prior?.state === "done")
          await tell({ state: "done", outputs: (prior.outputs ?? {}) as StepOutputs });
        else if (prior?.state === "failed") await tell({ state: "failed", error: prior.error ?? "failed" });
        return;
      }

      const actor: Actor = { userId: actorId ?? "workflow", via: "slack" };
      // WORKFLOW_STEPS=all: no writers' check, the writes are audited all the same.
      const access = step.writes && mode === "writers" ? "write" : "read";
      const command = `workflow step ${step.callbackId} (workflow run ${workflowRun}, step run ${executionId})`;
      let started = false;
      let outcome: Outcome;
      try {
        const outputs = await withApi(deps, actor, access, command, (api) => {
          started = true;
          return step.run(api, inputs, opts);
        });
        outcome = { state: "done", outputs };
      } catch (err) {
        outcome = { state: "failed", error: describe(err, started, actorId, log) };
      }
      await runs.finish(
        executionId,
        outcome.state === "failed" ? { ...outcome, error: errorWords(outcome.error) } : outcome,
      );
      log.info({ state: outcome.state }, "workflow step ran");
      await tell(outcome);
    } catch (err) {
      const ref = errorRef();
      log.error({ err, ref }, "workflow step failed");
      await tell({
        state: "failed",
        error: `Something went wrong inside Switchboard (ref ${ref}). Give this reference to whoever runs Switchboard.`,
      });
    }
  };
}

/** A failure in words a workflow author can act on: which input, which rule, or what the API said. */
function describe(err: unknown, started: boolean, actorId: string | undefined, log: Reach["logger"]): string {
  if (!started && err instanceof UserError)
    return `The actor ${actorId} may not make changes: only the people chosen to make changes (\`/sb settings\`) may run Switchboard's writing steps. Set the input actor to one of them, or ask an admin to add this person. Nothing was changed.`;
  if (err instanceof UserError) return plainWords(err.message);
  if (err instanceof NetworkError && err.mayHaveReachedServer) {
    // Never "failed" in words: running the workflow again could make the change twice.
    log.warn({ kind: err.kind }, "workflow step: no answer from the messaging API, outcome unknown");
    return "No answer from the messaging API: the change may or may not have been made. Check in Switchboard (for example the contact or the conversation) before running this workflow again, or it could happen twice.";
  }
  if (isApiError(err)) {
    log.info({ kind: err.kind }, "the messaging API refused a workflow step");
    return plainWords(apiErrorReply(err).text);
  }
  const ref = errorRef();
  log.error({ err, ref }, "workflow step failed");
  return `Something went wrong inside Switchboard (ref ${ref}). Give this reference to whoever runs Switchboard.`;
}

/** What a workflow author is told about a step a restart interrupted. */
export function interruptedWords(writes: boolean): string {
  return writes
    ? "Switchboard restarted during this step, so whether its change was made is not known. Check in Switchboard (for example the contact or the conversation) before running this workflow again, or the change could happen twice."
    : "Switchboard restarted during this step; it changes nothing, so running the workflow again is safe.";
}
