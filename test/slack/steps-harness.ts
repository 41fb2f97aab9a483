// Workflow Builder runs Switchboard's custom steps: the fake Slack knows them
// from manifest.yml (so outputs are checked against what the manifest
// declares), creates an execution, and the signed function_executed event
// reaches the Bolt app; the step ends when the app calls
// functions.completeSuccess or functions.completeError.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { FakeExecution, FakeFunctionDef, FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";

export function manifestFunctions(): Record<string, FakeFunctionDef> {
  const m = parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8"));
  return m.functions;
}

export class Workflow {
  readonly req: SlackRequests;
  readonly fake: FakeSlack;

  constructor(req: SlackRequests, fake: FakeSlack) {
    this.req = req;
    this.fake = fake;
    fake.defineFunctions(manifestFunctions());
  }

  /** Delivers the execution of a step and waits until the app completed or failed it. */
  async run(callbackId: string, inputs: Record<string, unknown>): Promise<FakeExecution> {
    const sent = await this.req.functionExecuted(callbackId, inputs);
    if (sent.status !== 200) throw new Error(`the app answered ${sent.status} to function_executed`);
    return this.finished(sent.execution);
  }

  /** Resolves when the app completed or failed the execution. */
  finished(execution: FakeExecution): Promise<FakeExecution> {
    return this.fake.waitFor(
      () => (execution.state !== "running" ? execution : undefined),
      20_000,
      `the end of step ${execution.callbackId}`,
    );
  }

  /** The calls the app made to end this execution (completeSuccess and completeError). */
  endings(execution: FakeExecution) {
    return this.fake.calls.filter(
      (c) => c.method.startsWith("functions.complete") && c.args.function_execution_id === execution.id,
    );
  }
}
