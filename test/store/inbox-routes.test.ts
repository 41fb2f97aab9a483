// Migration 004_routing (issue 20 §4, docs/inbox.md "Upgrade note"): a
// conversation that already has threads in two inboxes is given to the inbox
// of its oldest thread; a chat user without a posted thread has no route yet;
// a route is taken once, and taken over only from the inbox it was in.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { INBOX_MIGRATIONS, InboxStore } from "../../src/store/inbox.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";

let db: TestDb;

beforeAll(async () => {
  db = await openTestDb();
});

afterAll(async () => {
  await db?.close();
});

describe("inbox routes", () => {
  it("the upgrade gives each conversation to the inbox of its oldest thread, once", async () => {
    const before = {
      ...INBOX_MIGRATIONS,
      migrations: INBOX_MIGRATIONS.migrations.filter((m) => m.id < "004_routing"),
    };
    await migrate(db, before);
    const t = (n: number) => new Date(Date.UTC(2026, 0, n));
    // The rows as the earlier version kept them (before workspaces: no column for it).
    const thread = (channel: string, chatUser: number, created: Date, ts: string | null) =>
      db.query(
        "insert into inbox.threads (channel, chat_user_id, created_at, thread_ts) values ($1, $2, $3, $4)",
        [channel, chatUser, created, ts],
      );
    // Chat user 1: a thread in C0ALL first, then in C0HUMAN (two overlapping inboxes).
    await thread("C0ALL", 1, t(1), "1.1");
    await thread("C0HUMAN", 1, t(2), "2.1");
    // Chat user 2: known, no card.
    await thread("C0ALL", 2, t(1), null);

    expect(await migrate(db, INBOX_MIGRATIONS)).toEqual([
      "004_routing",
      "005_workspace",
      "006_snooze_rating",
      "007_reply_targets",
      "008_desk_events_snoozed_rated",
      "009_away",
    ]);
    // They belong to the single-workspace mode's workspace.
    const store = new InboxStore(db, ENV_WORKSPACE);
    expect(await new InboxStore(db, "T0OTHER").routeOf(1)).toBeUndefined();
    expect(await store.routeOf(1)).toBe("C0ALL");
    expect(await store.routeOf(2)).toBeUndefined();
    expect((await store.setInbox("C0ALL", "all", "U0A", t(3))).inbox).toMatchObject({
      types: [],
      replies: "send",
    });

    // Taken once; taken over only from the inbox it was in.
    expect(await store.takeRoute(2, "C0PHONE", undefined, t(4))).toBe(true);
    expect(await store.takeRoute(2, "C0WEB", undefined, t(4))).toBe(false);
    expect(await store.takeRoute(2, "C0WEB", "C0ALL", t(4))).toBe(false);
    expect(await store.takeRoute(2, "C0WEB", "C0PHONE", t(4))).toBe(true);
    expect(await store.routeOf(2)).toBe("C0WEB");
  });
});
