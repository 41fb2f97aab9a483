// Work the API accepted is never told as failed (issue 27 §4). When posting
// its outcome fails (the token revoked, the workspace uninstalled meanwhile,
// the channel gone), the outcome is logged and kept for the person in the
// store (store/undelivered.ts), told at once on the request's response_url
// when that still answers, else with the person's next command or on their
// Home tab (until Got it: takeSeen): never turned into "Something went wrong
// … Try again", an invitation to do it twice. Taken once (store's take), so
// never said twice; the Home tab is published again once they are taken.
import type { RespondFn, webApi } from "@slack/bolt";
import type { WorkspaceStores } from "../store/workspace-stores.ts";
import type { OneWorkspaceWork } from "./context.ts";
import { slackCode, TOKEN_REFUSED } from "./io/slack-errors.ts";

type Deps = Pick<OneWorkspaceWork, "stores" | "workspace" | "logger">;
/** With the workspace's hooks and a Slack client: the Home tab can be published again. */
type HomeDeps = Deps & Partial<Pick<OneWorkspaceWork, "hooks">>;

/** Why Slack would not take the post, in words. */
export function whyNotPosted(err: unknown): string {
  const code = slackCode(err) ?? "";
  if (TOKEN_REFUSED.has(code)) return "Slack no longer accepts Switchboard's messages in this workspace";
  if (["channel_not_found", "is_archived", "channel_is_archived", "not_in_channel"].includes(code))
    return "the channel is gone or closed to Switchboard";
  return "Slack did not take the message";
}

/**
 * Runs `post`, the message telling an outcome the API accepted. When it fails
 * the outcome is logged and kept for `userId`, then offered on `respond` (the
 * request's response_url) if there is one. Never throws what the post threw;
 * returns whether the post went out.
 */
export async function tellAccepted(
  deps: Deps,
  userId: string,
  outcome: string,
  post: () => Promise<unknown>,
  respond?: RespondFn,
): Promise<boolean> {
  try {
    await post();
    return true;
  } catch (err) {
    deps.logger.warn(
      { slack: slackCode(err), err: slackCode(err) ? undefined : String(err), userId, outcome },
      "the API accepted the work, but its outcome could not be posted: kept for the person",
    );
    const line = `:information_source: Done, but ${whyNotPosted(err)}, so it was not said in the channel: ${outcome}`;
    if (!deps.stores) {
      await respond?.({ response_type: "ephemeral", replace_original: false, text: line }).catch(() => {});
      return false;
    }
    await deps.stores.undelivered
      .keep(userId, line)
      .catch((again: unknown) =>
        deps.logger.error({ err: String(again) }, "could not keep an outcome Slack did not take"),
      );
    if (respond) await showKept(deps, userId, respond);
    return false;
  }
}

/**
 * A person's kept outcomes are claimed, told and released (when telling fails) one try at a time in this
 * process: a command that arrives while a try is failing waits for the outcomes to be released and says
 * them, rather than finding them claimed and leaving them for the command after. Across replicas the
 * store's claim still says each once; a command on another replica within that window finds them claimed
 * (docs/slack.md). A process that dies in that window leaves them claimed for CLAIM_MS: then told again.
 */
// state: the workspace's, keyed by its stores (made once by its runtime): its people's tries go with it.
const trying = new WeakMap<WorkspaceStores, Map<string, Promise<unknown>>>();

function oneTryAtATime<T>(stores: WorkspaceStores, userId: string, work: () => Promise<T>): Promise<T> {
  let mine = trying.get(stores);
  if (!mine) {
    mine = new Map();
    trying.set(stores, mine);
  }
  const tries = mine;
  const run = (tries.get(userId) ?? Promise.resolve()).then(work, work);
  const settled = run.catch(() => {});
  tries.set(userId, settled);
  void settled.then(() => {
    if (tries.get(userId) === settled) tries.delete(userId);
  });
  return run;
}

/**
 * The person's kept outcomes, said on `respond` (an ephemeral message of
 * their request) and removed; put back when that fails. Returns how many.
 */
export function showKept(
  deps: HomeDeps,
  userId: string,
  respond: RespondFn,
  client?: webApi.WebClient,
): Promise<number> {
  if (!deps.stores) return Promise.resolve(0);
  return oneTryAtATime(deps.stores, userId, () => tellKept(deps, userId, respond, client));
}

async function tellKept(
  deps: HomeDeps,
  userId: string,
  respond: RespondFn,
  client?: webApi.WebClient,
): Promise<number> {
  if (!deps.stores) return 0;
  const store = deps.stores.undelivered;
  const kept = await store.claim(userId).catch(() => []);
  if (kept.length === 0) return 0;
  const lines = kept.map((o) => `• ${o.text}`);
  const head =
    kept.length === 1
      ? "Switchboard could not tell you this earlier:"
      : `Switchboard could not tell you these ${kept.length} things earlier:`;
  try {
    await respond({
      response_type: "ephemeral",
      replace_original: false,
      text: `${head}\n${lines.join("\n")}`.slice(0, 3900),
    });
  } catch (err) {
    deps.logger.warn({ err: String(err) }, "could not show the outcomes kept for a person; kept again");
    await store.release(userId, kept).catch(() => {});
    return 0;
  }
  // Said: removed (a failure here leaves them claimed, said again once the claim runs out: not lost).
  await store
    .told(userId, kept)
    .catch((err: unknown) =>
      deps.logger.warn({ err: String(err) }, "could not remove the outcomes just told"),
    );
  // The Home tab, which listed them, no longer does.
  if (client) await republishHome(deps, client, userId);
  return kept.length;
}

/**
 * Got it on the Home tab: the person's kept outcomes taken, but those kept
 * after the newest the tab showed (`shownUntil`, epoch ms), which go back
 * unseen; then the tab published again. Returns how many were taken.
 */
export async function takeSeen(
  deps: HomeDeps,
  client: webApi.WebClient,
  userId: string,
  shownUntil: number,
): Promise<number> {
  if (!deps.stores) return 0;
  const store = deps.stores.undelivered;
  return oneTryAtATime(deps.stores, userId, async () => {
    const taken = await store.dismiss(userId, shownUntil);
    await republishHome(deps, client, userId);
    return taken;
  });
}

/** The person's Home tab built and published again (the workspace's own); a failure is logged, not thrown. */
export async function republishHome(deps: HomeDeps, client: webApi.WebClient, userId: string): Promise<void> {
  const homeView = deps.hooks?.homeView;
  if (!homeView) return;
  try {
    await client.views.publish({ user_id: userId, view: await homeView(userId) });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, "could not publish the Home tab again");
  }
}
