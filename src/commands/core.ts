// The command core: a command line and who typed it in, Block Kit out.
// Order of work for every line: tokenize, find the command, check who may
// run it, validate every argument (no request is made for bad input), then
// either ask for confirmation (stored, so Confirm works once) or run it
// through the API client, recording every write in the audit table.
//
// The pieces are in core/: run.ts (a line, run or asked to confirm),
// confirm.ts (Confirm once, Cancel, an unknown outcome), audit.ts (the hook
// that records every write), suggest.ts (the closest commands to a line that
// names none), parts.ts (what they share: options, context, the answer's last
// look). This file puts them together.

import { startCampaign } from "../campaigns/road.ts";
import { confirmer } from "./core/confirm.ts";
import { type CoreOptions, coreParts } from "./core/parts.ts";
import { runner } from "./core/run.ts";
import { setStart, startTimeRefusal } from "./defs/campaign-start.ts";
import { channelNamesOf } from "./defs/common.ts";
import { mention, type Permissions } from "./permissions.ts";
import { type Registry, UserError } from "./registry.ts";
import type { CommandCore } from "./types.ts";

export type { CoreOptions } from "./core/parts.ts";
export { MAX_LINE } from "./core/run.ts";

export interface SwitchboardCore extends CommandCore {
  readonly registry: Registry;
  readonly permissions: Permissions;
}

export function createCommandCore(opts: CoreOptions): SwitchboardCore {
  const p = coreParts(opts);
  const { registry, permissions, channels } = p;
  const { ask, confirm, dismiss } = confirmer(p);
  const { run } = runner(p, { ask });

  const perform: CommandCore["perform"] = async (actor, what, work) => {
    const verdict = await permissions.check(actor, what.access);
    if (!verdict.ok) {
      const kind = what.access === "broadcast" ? "send or cancel campaigns" : "make changes";
      throw new UserError(
        `You may not do this: only ${verdict.allowed.map(mention).join(", ")} may ${kind}. Ask one of them to do it, or to have you added to those who may.`,
        false,
      );
    }
    return work(p.auditing.audited(actor, what.command));
  };

  const audit: CommandCore["audit"] = (actor, e) => p.auditing.done(actor, e.command, e);

  const may: SwitchboardCore["may"] = async (actor, access) => (await permissions.check(actor, access)).ok;

  const channelNames: SwitchboardCore["channelNames"] = channelNamesOf({ channels });

  // A held start when due (issue 37 §1): the requester may still broadcast, then the one road, every rail as it is now.
  const startHeld: SwitchboardCore["startHeld"] = async (actor, campaignId) => {
    const verdict = await permissions.check(actor, "broadcast");
    if (!verdict.ok)
      throw new UserError(
        `${actor.via === "shell" ? "the shell operator" : mention(actor.userId)} may no longer send campaigns (only ${verdict.allowed.map(mention).join(", ")} may)`,
        false,
      );
    const ctx = p.makeContext(actor, `campaign ${campaignId} send (held start)`, []);
    return startCampaign(ctx, campaignId, "held");
  };

  // A start set outside a command line (the campaign form's): the same check as `send at=` (who may, the approval).
  const setStartOf: SwitchboardCore["setStart"] = async (actor, campaignId, at, line) => {
    const ctx = p.makeContext(actor, line, []);
    const c = await ctx.api.getCampaign(campaignId);
    return setStart(ctx, campaignId, c, at, "created");
  };

  // A start time a form chose (the campaign form's): the rule `at=` passes, with this workspace's rules.
  const startTimeProblem: SwitchboardCore["startTimeProblem"] = (at) =>
    startTimeRefusal(at, { now: opts.now ?? (() => new Date()), startRules: opts.startRules ?? {} });

  return {
    run,
    confirm,
    dismiss,
    perform,
    audit,
    may,
    channelNames,
    startHeld,
    setStart: setStartOf,
    startTimeProblem,
    registry,
    permissions,
    admin: opts.admin,
    defaultCountry: opts.defaultCountry,
    defaultChannelId: opts.defaultChannelId,
  };
}
