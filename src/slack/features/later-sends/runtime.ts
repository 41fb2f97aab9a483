// Messages sent later, their Slack side (issue 40 §2): the one LaterSendRunner
// of a process (src/commands/later-sends.ts), each message sent with its
// workspace's core (as its writer, audited) and its writer told by DM when it
// was not sent or its outcome is not known. A workspace not connected (or
// departed) gives nothing: its messages wait.
import { LaterSendRunner, type LaterSendWorkspace } from "../../../commands/later-sends.ts";
import type { CommandCore } from "../../../commands/types.ts";
import { valuesOf } from "../../../commands/workspace-admin.ts";
import { startRulesOf } from "../../../domain/start-time.ts";
import type { WorkspaceId } from "../../../domain/workspace.ts";
import type { Logger } from "../../../platform/log.ts";
import type { Db } from "../../../store/db.ts";
import { claimsAs } from "../../../timers/runner.ts";
import type { SlackBridge } from "../../io/bridge.ts";
import { PROCESS_ID } from "../../recovery/interrupted-commands.ts";

export interface LaterSendsRuntimeOptions {
  // db: the later sends' runner runs every workspace's timed messages, each claimed once across replicas.
  db: Db;
  logger: Logger;
  /** A connected workspace's core and Slack bridge; undefined: not connected, its messages wait. */
  forWorkspace: (
    id: WorkspaceId,
  ) => Promise<{ core: Pick<CommandCore, "perform" | "audit" | "admin">; bridge?: SlackBridge } | undefined>;
  /** The time now (a test's clock). */
  now?: () => Date;
}

export function createLaterSends(opts: LaterSendsRuntimeOptions): LaterSendRunner {
  const db = opts.db;
  return new LaterSendRunner({
    db,
    // Claimed as this process: what a killed replica left running is told as unknown by any other.
    ...claimsAs(db, PROCESS_ID),
    ...(opts.now ? { now: opts.now } : {}),
    logger: opts.logger.child({ part: "later-sends" }),
    forWorkspace: async (id): Promise<LaterSendWorkspace | undefined> => {
      const ws = await opts.forWorkspace(id);
      if (!ws) return undefined;
      // The workspace's zone as it is now (its effective settings); quiet hours do not apply.
      const settings = await ws.core.admin?.settings().catch(() => undefined);
      const tz = settings ? valuesOf(settings).reportsTimeZone : undefined;
      const bridge = ws.bridge;
      return {
        core: ws.core,
        rules: startRulesOf(tz, undefined),
        ...(bridge
          ? {
              dm: async (user, m) => {
                await bridge.posts.post(bridge.client, { channel: user, text: m.text, blocks: m.blocks });
              },
            }
          : {}),
      };
    },
  });
}
