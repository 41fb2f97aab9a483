// The store's table of Slack event ids (schema `slack`): one claim per id,
// ids older than a day forgotten, the migration id databases already hold.
import { describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { SeenEvents } from "../../src/store/events.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

describe.each(storeBackends())("seen events on %s", (backend) => {
  // One database for the file: each test claims ids of its own.
  const db = useStoreDb(backend);

  it("claims an id once, also from a second opening", async () => {
    const first = await SeenEvents.open(db());
    expect(await first.claim("Ev1", ENV_WORKSPACE)).toBe(true);
    expect(await first.claim("Ev1", ENV_WORKSPACE)).toBe(false);
    const second = await SeenEvents.open(db());
    expect(await second.claim("Ev1", ENV_WORKSPACE)).toBe(false);
    expect(await second.claim("Ev2", ENV_WORKSPACE)).toBe(true);
    const { rows } = await db().query<{ id: string }>("select id from slack.migrations");
    expect(rows.map((r) => r.id)).toEqual(["001_seen_events", "002_workspace", "003_oauth_states"]);
  });

  it("forgets ids older than a day when opened", async () => {
    const seen = await SeenEvents.open(db());
    await seen.claim("old", ENV_WORKSPACE);
    await seen.claim("recent", ENV_WORKSPACE);
    await db().query(
      "update slack.seen_events set seen_at = now() - interval '25 hours' where event_id = 'old'",
    );
    const reopened = await SeenEvents.open(db());
    expect(await reopened.claim("old", ENV_WORKSPACE)).toBe(true);
    expect(await reopened.claim("recent", ENV_WORKSPACE)).toBe(false);
  });
});
