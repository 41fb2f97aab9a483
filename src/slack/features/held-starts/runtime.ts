// Held starts' Slack side (issue 28 §4): the one HeldStartRunner of a process
// (src/campaigns/held-start-runner.ts), each start run with its workspace's
// core (audited as the person who asked), its card edited with chat.update
// and its requester told by DM. A workspace not connected (or departed) gives
// nothing: its starts wait. Every rail (who may, the approval, the quiet hours
// as they are now, the audience) is the one road's: core.startHeld.

import {
  HeldStartRunner,
  type HeldStartWorkspace,
  type StartCheck,
} from "../../../campaigns/held-start-runner.ts";
import { heldCard } from "../../../campaigns/held-starts.ts";
import type { CommandCore } from "../../../commands/types.ts";
import { valuesOf } from "../../../commands/workspace-admin.ts";
import { startRulesOf } from "../../../domain/start-time.ts";
import type { WorkspaceId } from "../../../domain/workspace.ts";
import type { Logger } from "../../../platform/log.ts";
import type { Db } from "../../../store/db.ts";
import type { WorkspaceStores } from "../../../store/workspace-stores.ts";
import { claimsAs } from "../../../timers/runner.ts";
import type { SlackHooks } from "../../context.ts";
import type { SlackBridge } from "../../io/bridge.ts";
import { PROCESS_ID } from "../../recovery/interrupted-commands.ts";
import { campaignCardPosted } from "../campaign-cards.ts";

export interface HeldStartsRuntimeOptions {
  // db: the held starts' due scan runs every workspace's starts, each claimed once across replicas.
  db: Db;
  logger: Logger;
  /** A connected workspace's core and Slack bridge; undefined: not connected, its starts wait. */
  forWorkspace: (id: WorkspaceId) => Promise<
    | {
        core: Pick<CommandCore, "startHeld" | "audit" | "admin">;
        bridge?: SlackBridge;
        /** The workspace's hooks: a start that ran is followed as a launch is (live progress). */
        hooks?: Pick<SlackHooks, "onPosted">;
        /** The workspace's stores: the started card kept as its campaign's current one, and followed. */
        stores?: WorkspaceStores;
      }
    | undefined
  >;
  /** An extra check before each start (tests); the rails themselves are the one road's (core.startHeld). */
  check?: StartCheck;
  /** The time now (a test's clock). */
  now?: () => Date;
}

export function createHeldStarts(opts: HeldStartsRuntimeOptions): HeldStartRunner {
  const log = opts.logger.child({ part: "held-starts" });
  const db = opts.db;
  return new HeldStartRunner({
    db,
    // Claimed as this process: what a killed replica left running is told as unknown by any other.
    ...claimsAs(db, PROCESS_ID),
    ...(opts.check ? { check: opts.check } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    logger: log,
    forWorkspace: async (id): Promise<HeldStartWorkspace | undefined> => {
      const ws = await opts.forWorkspace(id);
      if (!ws) return undefined;
      // The workspace's effective settings as they are now (its own, the environment's defaults applied by its admin).
      const settings = await ws.core.admin?.settings().catch(() => undefined);
      const values = settings ? valuesOf(settings) : undefined;
      const rules = startRulesOf(values?.reportsTimeZone, values?.quietHours);
      const bridge = ws.bridge;
      return {
        core: ws.core,
        rules,
        ...(bridge
          ? {
              updateCard: async (channel, ts, m) => {
                await bridge.client.chat.update({ channel, ts, text: m.text, blocks: m.blocks });
              },
              dm: async (user, m) => {
                await bridge.posts.post(bridge.client, { channel: user, text: m.text, blocks: m.blocks });
              },
              live: async (s, c) => {
                if (!s.channel || !s.ts) return;
                const card = heldCard(s, rules, c);
                await campaignCardPosted(
                  {
                    ...(ws.stores ? { stores: ws.stores } : {}),
                    logger: log,
                    ...(ws.hooks ? { hooks: ws.hooks } : {}),
                  },
                  bridge.client,
                  {
                    channel: s.channel,
                    ts: s.ts,
                    text: card.text,
                    reply: {
                      visibility: "in_channel",
                      ...card,
                      origin: {
                        command: "campaign.send",
                        id: s.campaignId,
                        facts: "",
                        card: { role: "live", name: c.name, status: c.status },
                      },
                    },
                    by: s.requestedBy,
                  },
                );
              },
            }
          : {}),
      };
    },
  });
}
