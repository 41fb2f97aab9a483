// What the tests of the claimed-once timer share (held starts and messages
// sent later, src/timers/runner.ts): a clock the test moves, a second
// process's pool on the harness's PostgreSQL database (two replicas), and the
// Slack stack both kinds are tried in (Alice a writer, an audit channel).
import type { MessagingClient } from "../../src/api/client.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { type SlackStack, startStack } from "./stack.ts";

/** A clock the test moves. */
export function testClock(iso: string) {
  let t = Date.parse(iso);
  return {
    now: () => new Date(t),
    set(at: string) {
      t = Date.parse(at);
    },
    advance(ms: number) {
      t += ms;
    },
  };
}

/** `fn` with a pool of its own on `db`'s PostgreSQL database, as another replica has (closed after). */
export async function onSecondPool<T>(db: Db, fn: (other: Db) => Promise<T>): Promise<T> {
  const url = (db as { url?: string }).url;
  if (!url) throw new Error("a second pool needs the test database's URL (PostgreSQL)");
  const other = await openDb({ databaseUrl: url, maxConnections: 3 });
  try {
    return await fn(other);
  } finally {
    await other.close();
  }
}

export const ALICE = { id: "U0ALICE", name: "alice" };
export const AUDIT = "C0AUDIT";

/** The Slack stack with Alice a writer, messaging channel 1 and an audit channel. */
export function startAuditedStack(): Promise<SlackStack> {
  return startStack({
    writers: [ALICE.id],
    env: { MESSAGING_CHANNEL_ID: "1", AUDIT_CHANNEL: AUDIT },
    slack: {
      channels: [
        { id: "C0GENERAL", name: "general", is_member: true },
        { id: AUDIT, name: "audit", is_member: true },
      ],
    },
  });
}

/** A draft campaign made in the API (template 1 to group 1), not through Switchboard: its id. */
export async function draftCampaign(client: Pick<MessagingClient, "createCampaign">, name: string) {
  const c = await client.createCampaign({ name, integrationId: 1, templateId: 1, groupIds: [1] } as never);
  return Number(c.id);
}
