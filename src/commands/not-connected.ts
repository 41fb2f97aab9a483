// A workspace installed but not yet connected to a messaging account (issue
// 19 §2): every `/sb` command, shortcut, step and inbox reply says so, and who
// connects it, without any call to the API. Its core knows only help,
// connect and settings; everything else answers notConnectedReply().
import type { KnownBlock } from "@slack/types";
import type { MessagingApi } from "../api/types.ts";
import { actions, context, section } from "../blocks/blocks.ts";
import { SwitchboardError } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";
import { createCommandCore, type SwitchboardCore } from "./core.ts";
import { HELP_COMMANDS } from "./defs/help.ts";
import { WORKSPACE_COMMANDS } from "./defs/workspace.ts";
import { Registry, UserError } from "./registry.ts";
import { stripCommandName } from "./tokenize.ts";
import { ACTION, type Actor, type Reply } from "./types.ts";
import { type WorkspaceAdmin, whoMayAdminister } from "./workspace-admin.ts";

/** The API of a workspace that has none: a bug if anything calls it. */
export class NotConnectedError extends SwitchboardError {
  readonly code = "not_connected";
}

const NO_API: MessagingApi = new Proxy({} as MessagingApi, {
  get(_target, name) {
    if (name === "then") return undefined;
    if (name === "withHook") return () => NO_API;
    return () =>
      Promise.reject(new NotConnectedError("this workspace is not connected to a messaging account"));
  },
});

/** The commands an unconnected workspace has. */
const COMMANDS = [
  ...HELP_COMMANDS.filter((c) => c.id === "help"),
  ...WORKSPACE_COMMANDS.filter((c) => c.id !== "disconnect"),
];

/** The sentence, without Slack markup beyond mentions: for a step's failure or a thread reply too. */
export function notConnectedText(who: string): string {
  return `This workspace is not connected to a messaging account yet, so Switchboard cannot do this. ${who.charAt(0).toUpperCase()}${who.slice(1)} connects it with /sb connect.`;
}

/**
 * The answer of an unconnected workspace: what is missing, who connects it
 * (the installer named when known); a Connect button for those who may.
 */
export function notConnectedReply(
  to: { via: Actor["via"]; isAdmin: boolean },
  who = "a workspace admin or owner",
): Reply {
  const shell = to.via === "shell";
  const lead = `:electric_plug: *This workspace is not connected to a messaging account yet*, so Switchboard cannot do this.`;
  const how = to.isAdmin
    ? shell
      ? "Connect it with `connect key=<API key>`: the key is checked with the messaging API before it is kept."
      : "You can connect it: click *Connect* (or type `/sb connect`) and paste the API key of your messaging account."
    : `${who.charAt(0).toUpperCase()}${who.slice(1)} connects it with \`/sb connect\`. Ask one of them.`;
  const blocks: KnownBlock[] = [section(`${lead}\n${how}`)];
  if (to.isAdmin && !shell)
    blocks.push(actions([{ text: "Connect", actionId: ACTION.run, value: "connect", style: "primary" }]));
  blocks.push(context("Until then, `/sb settings` shows this workspace's settings."));
  return { visibility: "ephemeral", text: notConnectedText(who), blocks };
}

export interface NotConnectedCoreOptions {
  /** The workspace's stores (its channel names, confirmations, audit). */
  stores: WorkspaceStores;
  admin: WorkspaceAdmin;
  logger?: Logger;
  confirmationTtlMs?: number;
}

/**
 * The core of an unconnected workspace: `connect`, `settings` and `help`
 * (topics, commands) run; every other line, confirmation and form answers
 * notConnectedReply() without a request.
 */
export function createNotConnectedCore(opts: NotConnectedCoreOptions): SwitchboardCore {
  const registry = new Registry(COMMANDS);
  const inner = createCommandCore({
    api: NO_API,
    stores: opts.stores,
    registry,
    admin: opts.admin,
    logger: opts.logger,
    confirmationTtlMs: opts.confirmationTtlMs,
  });
  const confirmations = opts.stores.confirmations;
  const answer = async (actor: Actor): Promise<Reply> =>
    notConnectedReply(
      { via: actor.via, isAdmin: await opts.admin.mayAdminister(actor).catch(() => false) },
      await whoMayAdminister(opts.admin),
    );

  return {
    registry: inner.registry,
    permissions: inner.permissions,
    admin: opts.admin,
    async run(line, actor) {
      const text = stripCommandName(line).trim();
      const words = text.split(/\s+/).filter(Boolean);
      const first = words[0]?.toLowerCase() ?? "help";
      // Bare help would show what a connected workspace does first: this says what is missing.
      if (first === "help" && words.length <= 1) return answer(actor);
      // Help on what this workspace cannot do yet would list nothing: say what is missing instead.
      if (first === "help" && !/^(workspace|connect|settings|all|commands)$/i.test(words[1] ?? ""))
        return answer(actor);
      if (["help", "connect", "settings"].includes(first)) return inner.run(line, actor);
      return answer(actor);
    },
    async confirm(id, actor) {
      const c = await confirmations.get(id);
      if (c && registry.get(c.command.id)) return inner.confirm(id, actor);
      return answer(actor);
    },
    dismiss: (id, actor) => inner.dismiss(id, actor),
    audit: (actor, entry) => inner.audit(actor, entry),
    may: (actor, access) => inner.may(actor, access),
    channelNames: () => inner.channelNames(),
    async perform() {
      throw new UserError(notConnectedText(await whoMayAdminister(opts.admin)), false);
    },
    async startHeld() {
      throw new UserError(notConnectedText(await whoMayAdminister(opts.admin)), false);
    },
  };
}
