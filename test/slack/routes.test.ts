// Buttons, options, forms and shortcuts are matched by Switchboard's routes
// (src/slack/listeners/routes.ts), one Bolt listener per kind, because Bolt
// runs every listener it has for every request: with each form's and button's
// listener registered with Bolt, a slash command allocated 225 KB, 79 KB of it
// in Bolt's listener loop (docs/benchmarks.md). The routes match as Bolt's
// matchConstraints does; this file holds them to that, and holds the app to
// few Bolt listeners.
import { App, MultipleListenerError } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import type { SlackBolt } from "../../src/slack/context.ts";
import { registerListeners } from "../../src/slack/listeners/index.ts";
import { matches, Routes } from "../../src/slack/listeners/routes.ts";

// biome-ignore lint/suspicious/noExplicitAny: requests are built loosely, as Slack's JSON.
type Json = any;

const action = (action_id: string, block_id = "b1", view?: Json) => {
  const body: Json = { type: "block_actions", actions: [{ action_id, block_id }], ...(view ? { view } : {}) };
  return { payload: { action_id, block_id }, body, context: {} as Json, action: body.actions[0] };
};

describe("a route's constraints match as Bolt's", () => {
  it("an action_id, by string or pattern; the pattern's matches go into the context", () => {
    expect(matches({ action_id: "sb_run" }, action("sb_run"))).toBe(true);
    expect(matches({ action_id: "sb_run" }, action("sb_run:2"))).toBe(false);
    const args = action("sb_run:2");
    expect(matches({ action_id: /^sb_run(:\d+)?$/ }, args)).toBe(true);
    expect(args.context.actionIdMatches?.[0]).toBe("sb_run:2");
    expect(matches({ action_id: /^sb_run$/ }, action("sb_other"))).toBe(false);
  });

  it("a block_id; a payload without an action_id never matches an action's constraints", () => {
    expect(matches({ block_id: "b1", action_id: "x" }, action("x", "b1"))).toBe(true);
    expect(matches({ block_id: "b2", action_id: "x" }, action("x", "b1"))).toBe(false);
    expect(
      matches({ action_id: "x" }, { payload: {} as Json, body: { type: "view_submission" }, context: {} }),
    ).toBe(false);
  });

  it("a callback_id, from the view when there is one, else from the body; and the type", () => {
    const inModal = action("pick", "b1", { callback_id: "sb_form_send" });
    expect(matches({ callback_id: "sb_form_send", action_id: "pick" }, inModal)).toBe(true);
    expect(matches({ callback_id: "sb_form_campaign", action_id: "pick" }, inModal)).toBe(false);
    expect(matches({ callback_id: "sb_form_send", type: "block_suggestion" }, inModal)).toBe(false);
    const shortcut = {
      payload: {} as Json,
      body: { type: "shortcut", callback_id: "sb_new" },
      context: {} as Json,
    };
    expect(matches({ callback_id: "sb_new", type: "shortcut" }, shortcut)).toBe(true);
    expect(matches({ callback_id: "sb_new", type: "message_action" }, shortcut)).toBe(false);
    expect(matches({ callback_id: /^sb_(new)$/ }, shortcut)).toBe(true);
    expect(shortcut.context.callbackIdMatches?.[1]).toBe("new");
    // An action outside any view and without a callback id: a callback_id constraint does not match.
    expect(matches({ callback_id: "sb_form_send" }, action("pick"))).toBe(false);
  });
});

describe("dispatch runs the routes that match, as Bolt runs its listeners", () => {
  const run = (routes: Routes, args: Json) =>
    routes.dispatch("action", { ...args, next: async () => {} } as Json);

  it("only the matching route runs; a bare id is an action_id; a request no route matches runs nothing", async () => {
    const routes = new Routes();
    const ran: string[] = [];
    routes.action("a", async () => void ran.push("a"));
    routes.action({ action_id: /^b/ }, async () => void ran.push("b"));
    await run(routes, action("b:1"));
    await run(routes, action("zzz"));
    expect(ran).toEqual(["b"]);
  });

  it("a chain: each listener but the last calls next for the one after it; the last's next does nothing", async () => {
    const routes = new Routes();
    const ran: string[] = [];
    routes.action(
      "a",
      async ({ next }: Json) => {
        ran.push("guard");
        await next();
      },
      async ({ next }: Json) => {
        ran.push("listener");
        expect(next()).toBeUndefined();
      },
    );
    await run(routes, action("a"));
    expect(ran).toEqual(["guard", "listener"]);
  });

  it("every matching route runs; one error is thrown as it is, several as Bolt's MultipleListenerError", async () => {
    const one = new Routes();
    const ran: string[] = [];
    one.action("a", async () => void ran.push("first"));
    one.action({ action_id: /^a$/ }, async () => {
      ran.push("second");
      throw new Error("boom");
    });
    await expect(run(one, action("a"))).rejects.toThrow("boom");
    expect(ran.sort()).toEqual(["first", "second"]);
    const two = new Routes();
    two.action("a", async () => {
      throw new Error("x");
    });
    two.action("a", async () => {
      throw new Error("y");
    });
    await expect(run(two, action("a"))).rejects.toBeInstanceOf(MultipleListenerError);
  });

  it("a view's bare callback id matches its submissions only, as Bolt's app.view does", async () => {
    const routes = new Routes();
    const ran: string[] = [];
    routes.view("sb_form_send", async () => void ran.push("submitted"));
    const view = (type: string) => ({
      payload: { callback_id: "sb_form_send" },
      body: { type, view: { callback_id: "sb_form_send" } },
      context: {},
      next: async () => {},
    });
    await routes.dispatch("view", view("view_closed") as Json);
    await routes.dispatch("view", view("view_submission") as Json);
    expect(ran).toEqual(["submitted"]);
  });
});

describe("the app", () => {
  it("gives Bolt one listener per kind for every button, option, form and shortcut", () => {
    const app = new App({ token: "xoxb-test", signingSecret: "s", tokenVerificationEnabled: false });
    const routes = registerListeners(app as unknown as SlackBolt);
    const routed = (["action", "options", "view", "shortcut"] as const).reduce(
      (n, k) => n + routes.count(k),
      0,
    );
    // The registrations are all there, as routes …
    expect(routes.count("view")).toBeGreaterThanOrEqual(10);
    expect(routed).toBeGreaterThan(40);
    // … while Bolt holds a few listeners (events, the command, functions, and the four kinds' routers),
    // not one for each of them.
    const bolt = (app as unknown as { listeners: unknown[] }).listeners.length;
    expect(bolt).toBeLessThan(20);
    expect(bolt).toBeLessThan(routed / 2);
  });
});
