// What a listener can reach, as a type test (issue 38 §3). Compiled with the
// project (`npx tsc --noEmit`: tsconfig includes test/), never run. Each
// `@ts-expect-error` line is a reach a listener must not have; TypeScript
// fails the build when one of them type-checks (an unused `@ts-expect-error`
// is an error), so a member added to the listener's argument that opens the
// way to another workspace, the database or any name at all (an index
// signature) breaks `npm run typecheck`. The lines without it are what a
// listener needs, and must keep type-checking.
//
// Against the old types (Bolt's `context` as SlackContext, string-indexed,
// with the workspaces' source and the database), every `@ts-expect-error`
// below is unused: there, a listener could write all of these. The same holds
// for work outside a request (WorkspaceWork, which was the services and the
// scope joined, database included) and a workspace's background job (whose
// argument held the database and the API key), at the end of the file.
import type { BlockAction, ButtonAction, ViewSubmitAction } from "@slack/bolt";
import type { WorkspaceId } from "../../src/domain/workspace.ts";
import type { Reach, SlackBolt, WorkspaceWork } from "../../src/slack/context.ts";
import type { Submission } from "../../src/slack/forms/form.ts";
import {
  onAction,
  onCommand,
  onEvent,
  onFunction,
  onOptions,
  onShortcut,
  onView,
} from "../../src/slack/listeners/on.ts";
import type { Listeners } from "../../src/slack/listeners/routes.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import type { JobConfig, WorkspaceJob } from "../../src/workspaces/work.ts";

declare const app: SlackBolt;
declare const routes: Listeners;

/** A listener's argument, whatever its kind: its reach, the lines every kind shares. */
async function reach(ctx: Reach): Promise<void> {
  // What it needs: its own workspace (id, stores, core, hooks, settings) and the deployment's services by name.
  const id: WorkspaceId = ctx.workspace;
  await ctx.stores?.inbox.thread("C1", 1);
  await ctx.stores?.confirmations.get(id);
  await ctx.core.run("help", { userId: "U1", via: "slack" });
  const steps: "off" | "writers" | "all" = ctx.settings.workflowSteps;
  void [steps, ctx.hooks.homeView, ctx.connected, ctx.actor?.userId];
  ctx.logger.info("a listener logs");
  void [ctx.events, ctx.posts, ctx.work, ctx.formView, ctx.config.PUBLIC_URL];
  ctx.inFlight.add("a confirmation of this workspace");
  const done = await ctx.noted({ userId: "U1", line: "help" });
  await done();
  await ctx.leaving?.uninstalled(new Date());

  // Another workspace's scope: no source of workspaces.
  // @ts-expect-error a listener has no source of other workspaces
  await ctx.workspaces.scopeOf("T_OTHER");
  // @ts-expect-error nor one by another name
  await ctx.scopeOf("T_OTHER");
  // @ts-expect-error nor a request's team resolved
  await ctx.workspaces.resolve({ teamId: "T_OTHER" });
  // The database itself: another workspace's records are one constructor away from it.
  // @ts-expect-error a listener has no database
  void ctx.db;
  // @ts-expect-error so no store of another workspace made from it
  void new InboxStore(ctx.db, "T_OTHER");
  // A member that does not exist: no index signature lets a typo (or anything at all) through.
  // @ts-expect-error no such member
  void ctx.coer;
  // @ts-expect-error nor one named by a string
  void ctx["anything"];
  // A workspace's setting read from the deployment's config (issue 38 §4): only the deployment's own are there.
  // @ts-expect-error the default channel is the workspace's (ctx.core.defaultChannelId)
  void ctx.config.MESSAGING_CHANNEL_ID;
  // @ts-expect-error so is who may run Workflow steps (ctx.settings.workflowSteps)
  void ctx.config.WORKFLOW_STEPS;
  // Event ids claimed for another workspace: the store is bound to the request's.
  await ctx.events.claim("Ev1");
  // @ts-expect-error a listener's events are its workspace's: no workspace to name
  await ctx.events.claim("Ev1", "T_OTHER");
  // The deployment's lifecycle unbound (any team's uninstall): only `leaving`, bound to the request's team.
  // @ts-expect-error a listener has no unbound lifecycle
  void ctx.lifecycle;
}

onCommand(app, /.*/, async ({ ack, command, respond, client, ctx }) => {
  await ack();
  await respond({ text: command.text });
  await client.chat.postMessage({ channel: command.channel_id, text: "hi" });
  await reach(ctx);
});

onAction<BlockAction<ButtonAction>>(routes, { action_id: "sb_run" }, async (args) => {
  await args.ack();
  void args.action.value;
  await reach(args.ctx);
  // Bolt's own context (string-indexed, holding the source and the database) is not handed over.
  // @ts-expect-error Bolt's context is not a listener's
  void args.context.workspaces;
});

onView<ViewSubmitAction>(routes, "sb_form", async ({ ack, view, ctx }) => {
  await ack();
  void view.state.values;
  await reach(ctx);
});

onOptions(routes, { action_id: "sb_tpl" }, async ({ ack, body, ctx }) => {
  await ack({ options: [] });
  void body.value;
  await reach(ctx);
});

onShortcut(routes, { callback_id: "sb_send" }, async ({ ack, shortcut, ctx }) => {
  await ack();
  void shortcut.trigger_id;
  await reach(ctx);
});

onEvent(app, "app_home_opened", async ({ event, client, ctx }) => {
  await client.views.publish({ user_id: event.user, view: { type: "home", blocks: [] } });
  await reach(ctx);
});

onFunction(app, "send_message", async ({ inputs, complete, ctx }) => {
  await complete({ outputs: { given: String(inputs.actor) } });
  await reach(ctx);
});

/** A form's submission reaches what a listener does, no more. */
async function submitted(s: Submission<{ ch?: string }>): Promise<void> {
  await reach(s.ctx);
  // @ts-expect-error a form has no database
  void s.ctx.db;
}
void submitted;

/** Work outside a request (start-up settling, recovery: workFor) names its power as a listener's does. */
async function outsideRequest(work: WorkspaceWork): Promise<void> {
  void [work.workspace, work.stores, work.core, work.hooks, work.logger, work.posts, work.config.PUBLIC_URL];
  // The kind of the deployment's database (which rows a stopped process left), a word: not the database.
  const kind: "pglite" | "postgres" | undefined = work.database;
  void kind;
  await work.events.claim("Ev1");
  // @ts-expect-error work for one workspace has no source of other workspaces
  await work.workspaces.scopeOf("T_OTHER");
  // @ts-expect-error nor the database
  void work.db;
  // @ts-expect-error nor a workspace's setting from the deployment's config
  void work.config.MESSAGING_CHANNEL_ID;
  // @ts-expect-error nor another workspace's event ids
  await work.events.claim("Ev1", "T_OTHER");
  // @ts-expect-error nor any member by a string
  void work["anything"];
}
void outsideRequest;

/**
 * A workspace's background job (its inbox poller, its campaigns' live progress: src/workspaces/work.ts): the
 * workspace's reach and the deployment's settings it reads. The cross-workspace runners (held starts, later
 * sends, the report scheduler, the purge) hold the database each with its `// db:` reason, and are not this.
 */
function backgroundJob(job: WorkspaceJob, config: JobConfig): void {
  void [job.workspace, job.stores.inbox, job.stores.progress, job.client, job.slack, job.reports, job.inbox];
  void [job.eventsTo, config.INBOX_POLL_SECONDS, config.API_READ_LIMIT, config.REPORT_FAILURE_ALERT];
  job.onClose(async () => {});
  // @ts-expect-error a job has no database
  void job.db;
  // @ts-expect-error nor the workspace's API key (its client uses it)
  void job.apiKey;
  // @ts-expect-error nor a source of other workspaces
  void job.workspaces;
  // @ts-expect-error nor any member by a string
  void job["anything"];
  // @ts-expect-error its settings are the ones it reads: not a workspace's default channel
  void config.MESSAGING_CHANNEL_ID;
  // @ts-expect-error nor a secret of the deployment
  void config.MESSAGING_API_KEY;
}
void backgroundJob;
