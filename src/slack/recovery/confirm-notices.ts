// A process killed during a Confirm left "working on it…" on the prompt and
// the confirmation `running`; the next start settles it `unknown`
// (src/host/compose.ts, in either mode). Here, once the Slack app runs, the person who clicked is told
// what is known, with a button that checks the record: on that very message
// while the click's response_url is still good (30 minutes), else by DM.
// Each notice goes once, whichever replica gets to it first.

import type { RespondArguments, RespondFn, webApi } from "@slack/bolt";
import type { Actor } from "../../domain/actor.ts";
import type { WorkspaceWork } from "../context.ts";
import { deliver } from "../deliver.ts";

/** Slack keeps a response_url for 30 minutes; a little margin for the clock and the request. */
export const RESPONSE_URL_MS = 29 * 60_000;

/** Bolt's `respond`, for a response_url kept from an earlier process. */
export function respondTo(url: string): RespondFn {
  return (async (message: string | RespondArguments) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(typeof message === "string" ? { text: message } : message),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`the response_url answered ${res.status}`);
    return res;
  }) as unknown as RespondFn;
}

/** Tells the clickers of the workspace's interrupted confirmations; returns how many were told. */
export async function tellInterruptedConfirmations(
  deps: WorkspaceWork,
  client: webApi.WebClient,
  now = Date.now,
): Promise<number> {
  const confirmations = deps.stores?.confirmations;
  if (!confirmations) return 0;
  let told = 0;
  for (const { id, reply: target } of await confirmations.untoldInterrupted()) {
    if (!(await confirmations.markReplyTold(id))) continue; // another replica tells this one
    const actor: Actor = { userId: target.user, via: "slack" };
    // Not pending any more: the core explains the state (unknown, interrupted) with a check button.
    const reply = await deps.core.confirm(id, actor);
    const url = target.responseUrl;
    const fresh = url !== undefined && now() - Date.parse(target.at) < RESPONSE_URL_MS;
    try {
      await deliver(
        reply,
        {
          client,
          actor,
          respond: fresh ? respondTo(url) : undefined,
          replaceOriginal: true,
        },
        deps,
      );
    } catch (err) {
      if (!fresh) throw err;
      // The response_url refused (expired early): the DM instead.
      deps.logger.info(
        { err: (err as Error).message },
        "response_url refused the restart notice; sending a DM",
      );
      await deliver(reply, { client, actor }, deps);
    }
    told++;
  }
  return told;
}
