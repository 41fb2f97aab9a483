// A slash command is acknowledged by the first middleware (provideContext,
// src/slack/listeners/middleware.ts), before the request's workspace is
// resolved: its ack waits on nothing of Switchboard's (docs/benchmarks.md, "The
// slash ack, a third time"). Other requests are not acknowledged there: a
// click, a form or an option load may answer in its ack.
import { describe, expect, it } from "vitest";
import type { SlackServices } from "../../src/slack/context.ts";
import { provideContext } from "../../src/slack/listeners/middleware.ts";

// biome-ignore lint/suspicious/noExplicitAny: the middleware's arguments are built loosely, as Bolt's.
type Json = any;

/** Services whose workspace source never answers (a slow store, a hung lookup). */
function hangingServices(): { services: SlackServices; asked: () => number } {
  let asked = 0;
  const services = {
    workspaces: {
      resolve: () => {
        asked += 1;
        return new Promise(() => {});
      },
    },
    logger: { warn() {}, info() {}, error() {} },
  } as unknown as SlackServices;
  return { services, asked: () => asked };
}

/** Runs provideContext on `body` with a hanging workspace source; what it acked, once the event loop turned. */
async function firstMiddleware(body: Json): Promise<{ acks: unknown[]; context: Json; asked: number }> {
  const { services, asked } = hangingServices();
  const acks: unknown[] = [];
  const context: Json = {};
  void provideContext(services)({
    body,
    context,
    ack: async (answer?: unknown) => void acks.push(answer),
    next: async () => {},
  } as Json);
  await new Promise((r) => setImmediate(r));
  return { acks, context, asked: asked() };
}

describe("a slash command is acknowledged before anything of Switchboard's", () => {
  it("its ack is sent while the workspace's resolution has not answered", async () => {
    const { acks, context, asked } = await firstMiddleware({
      command: "/sb",
      text: "help",
      team_id: "T1",
      user_id: "U1",
    });
    expect(asked).toBe(1);
    expect(acks).toEqual([undefined]);
    // Bolt's context gets nothing of ours before the workspace is resolved (then only the Reach, privately keyed).
    expect(Reflect.ownKeys(context)).toEqual([]);
  });

  it("a click is not acknowledged there (its listener may answer in its ack)", async () => {
    const { acks, context, asked } = await firstMiddleware({
      type: "block_actions",
      team: { id: "T1" },
      user: { id: "U1" },
      actions: [{ action_id: "x" }],
    });
    expect(asked).toBe(1);
    expect(acks).toEqual([]);
    expect(context.acked).toBeUndefined();
  });
});
