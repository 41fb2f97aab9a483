// A person's kept outcomes (src/slack/outcomes.ts) are taken, told and put
// back one try at a time: a command that arrives while a try to tell them is
// failing (taken, not yet put back) says them, instead of finding nothing kept
// and leaving them for the command after. Each is said once all the same.
import type { RespondArguments, RespondFn } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/platform/log.ts";
import { showKept, takeSeen } from "../../src/slack/outcomes.ts";
import { UndeliveredOutcomes } from "../../src/store/undelivered.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

type Deps = Parameters<typeof showKept>[0];

/** A try to tell the person's outcomes whose response_url fails once `fail()` is called; resolved once it has taken them. */
async function failingTry(d: Deps, userId: string): Promise<{ done: Promise<number>; fail: () => void }> {
  const took = gate();
  const failing = gate();
  const done = showKept(d, userId, async () => {
    took.open();
    await failing.opened;
    throw new Error("expired_url");
  });
  await took.opened;
  return { done, fail: failing.open };
}

/** A response_url that answers, and what was said on it. */
function answering(): { respond: RespondFn; said: string[] } {
  const said: string[] = [];
  const respond: RespondFn = async (m) => {
    said.push(String((m as RespondArguments).text));
    return undefined as never;
  };
  return { respond, said };
}

describe.each(storeBackends())("kept outcomes told one try at a time on %s", (backend) => {
  const db = useStoreDb(backend);

  const deps = (workspace: string): Deps => ({
    stores: new WorkspaceStores(db(), workspace),
    workspace,
    logger: createLogger("silent"),
  });
  const keep = (d: Deps, userId: string, text: string) =>
    new UndeliveredOutcomes(db(), d.workspace).keep(userId, text);
  const left = async (d: Deps, userId: string) =>
    (await new UndeliveredOutcomes(db(), d.workspace).list(userId)).map((o) => o.text);

  it("a command during a failing try says what the try puts back", async () => {
    const d = deps("TRACE1");
    await keep(d, "U1", "Done: campaign 7 sent.");
    const first = await failingTry(d, "U1");
    const next = answering();
    const second = showKept(d, "U1", next.respond);
    first.fail();
    expect(await first.done).toBe(0);
    expect(await second).toBe(1);
    expect(next.said).toHaveLength(1);
    expect(next.said[0]).toContain("Done: campaign 7 sent.");
    // Said once: nothing left for a third.
    expect(await showKept(d, "U1", next.respond)).toBe(0);
    expect(next.said).toHaveLength(1);
  });

  it("keeps people and workspaces apart: a try that hangs holds up no one else", async () => {
    const d = deps("TRACE2");
    const other = deps("TRACE3");
    await keep(d, "U2", "Done: import finished.");
    await keep(d, "U5", "Done: group created.");
    await keep(other, "U2", "Done: contact saved.");
    const stuck = await failingTry(other, "U2");
    const next = answering();
    // The same person in another workspace, and another person in this one: told while the try hangs.
    expect(await showKept(d, "U2", next.respond)).toBe(1);
    expect(await showKept(d, "U5", next.respond)).toBe(1);
    expect(next.said.join("\n")).toContain("Done: import finished.");
    expect(next.said.join("\n")).toContain("Done: group created.");
    stuck.fail();
    expect(await stuck.done).toBe(0);
    expect(await left(other, "U2")).toEqual(["Done: contact saved."]);
  });

  it("Got it waits for a failing try and takes what it put back", async () => {
    const d = deps("TRACE4");
    await keep(d, "U4", "Done: tags added.");
    const first = await failingTry(d, "U4");
    const client = { views: { publish: async () => ({ ok: true }) } } as never;
    const got = takeSeen(d, client, "U4", Number.POSITIVE_INFINITY);
    first.fail();
    expect(await first.done).toBe(0);
    expect(await got).toBe(1);
    expect(await left(d, "U4")).toEqual([]);
  });
});
