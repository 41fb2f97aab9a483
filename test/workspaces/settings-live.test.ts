// A settings change in many-workspace mode is applied as in single mode (issue
// 38 §1, docs/workspaces.md "Settings take effect at once"): the workspace's
// runtime is kept, its effective settings replaced, its long-lived work (the
// inbox poller) going on untouched; the other workspaces are untouched; a new
// key still gives it a new runtime and client. Before, every change rebuilt
// the runtime, stopping and starting its inbox poller.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InboxStore } from "../../src/store/inbox.ts";
import type { WorkspaceRuntime } from "../../src/workspaces/runtime.ts";
import { eventually } from "../helpers/eventually.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let stack: WorkspacesStack;

beforeAll(async () => {
  stack = await startWorkspacesStack({ teams: 2 });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** A workspace's runtime, and whether it was closed since (its background work stops with it). */
async function watched(id: string): Promise<{ rt: WorkspaceRuntime; closed: () => boolean }> {
  const rt = (await stack.sb.workspaces.runtime(id))!;
  let closed = false;
  rt.onClose(async () => {
    closed = true;
  });
  return { rt, closed: () => closed };
}

describe("a settings change in many-workspace mode", () => {
  it("keeps the workspace's runtime and inbox poller, applies to its next command, and leaves the other alone", async () => {
    const [a, b] = stack.workspaces as [(typeof stack.workspaces)[0], (typeof stack.workspaces)[0]];
    const { sb } = stack;
    // An inbox: A's poller runs once its runtime is built.
    await new InboxStore(stack.db, a.team.teamId).setInbox(a.general, "all", a.user.id, new Date());
    const one = await watched(a.team.teamId);
    await eventually(() => sb.background.busy(a.team.teamId), "A's inbox poller running", {
      timeoutMs: 10_000,
    });
    const poller = one.rt.inbox.wake;
    expect(poller).toBeDefined();
    const other = await watched(b.team.teamId);
    const run = async (ws: typeof a, line: string, userId = `U${ws.team.teamId}BOB`) =>
      JSON.stringify(
        await (await sb.workspaces.scopeOf(ws.team.teamId)).core.run(line, {
          userId,
          via: "slack",
          teamId: ws.team.teamId,
          channelId: ws.general,
        }),
      );
    expect(await run(a, "tag add Early #1D9BD1")).toContain("Early");

    const set = await a.command(`settings set writers=<@${a.user.id}>`);
    expect(set).not.toMatch(/cannot|not allowed/i);

    // A's next command runs with the new writers.
    expect(await run(a, "tag add Late #1D9BD1")).toContain(a.user.id);
    expect(await run(a, "tags")).not.toContain("Late");
    // The same runtime, never closed: its inbox poller is the one started before, still running.
    expect(await sb.workspaces.runtime(a.team.teamId)).toBe(one.rt);
    expect(one.closed()).toBe(false);
    expect(sb.background.busy(a.team.teamId)).toBe(true);
    expect(one.rt.inbox.wake).toBe(poller);
    expect(one.rt.settings.writers).toEqual([a.user.id]);
    // B: its runtime and its writers as they were.
    expect(await sb.workspaces.runtime(b.team.teamId)).toBe(other.rt);
    expect(other.closed()).toBe(false);
    expect(await run(b, "tag add Early #1D9BD1")).toContain("Early");
  });

  it("a new key still gives the workspace a new runtime and client, its inbox poller started again", async () => {
    const a = stack.workspaces[0]!;
    const { sb } = stack;
    const before = await watched(a.team.teamId);
    const org = await sb.sandbox!.createOrganization({ name: "Another Org" });
    expect(await a.command(`connect key=${org.apiKey}`)).toContain("Connected to");
    const after = (await sb.workspaces.runtime(a.team.teamId))!;
    expect(after).not.toBe(before.rt);
    expect(after.client).not.toBe(before.rt.client);
    expect(after.apiKey).toBe(org.apiKey);
    expect(before.closed()).toBe(true);
    await eventually(() => sb.background.busy(a.team.teamId), "A's inbox poller running again", {
      timeoutMs: 10_000,
    });
  });
});
