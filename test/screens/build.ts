// The main screens, built from the real code paths: the test stack with the
// fake Slack (which checks every message and view against Slack's limits),
// the reports runtime, and commands typed as a person would. Each screen is
// the Block Kit Slack got: a chat.postMessage body, a response_url body or a
// Home view. `npm run screens` writes them as JSON and renders README's
// pictures (docs/screens/*.png); test/screens/screens.test.ts keeps them valid.
import { ACTION } from "../../src/commands/types.ts";
import { eventually } from "../helpers/eventually.ts";
import { seedCampaign } from "../reports/helpers.ts";
import {
  ALICE,
  buttonsOf,
  type ReportsHarness,
  startReportsHarness,
  textOf,
} from "../slack/reports-harness.ts";

type Json = Record<string, unknown>;

export interface Screen {
  /** File name without extension: `campaign-running`. */
  name: string;
  title: string;
  /** What blockkit-preview renders: a message, a Home view, or an array of messages. */
  payload: Json | Json[];
}

const message = (m: { text?: unknown; blocks?: unknown }): Json => ({ text: m.text, blocks: m.blocks });

/** Runs the screens on a fresh stack; `h` is handed over for tests that look further. */
export async function buildScreens(
  opts: { keep?: (h: ReportsHarness) => Promise<void> } = {},
): Promise<Screen[]> {
  const h = await startReportsHarness({
    start: new Date(),
    runtime: { scheduler: false },
    homeCacheMs: 0,
    env: { MESSAGING_CHANNEL_NAMES: "1=Main line,2=Support" },
  });
  try {
    const screens: Screen[] = [];
    const answer = async (line: string) => {
      const res = await h.req.command(line, { user: ALICE });
      return (await h.fake.waitForResponse(res.responseUrl as string)).body as Json;
    };
    const campaigns = (await h.client.listCampaigns({})).items;
    const draft = campaigns.find((c) => c.status === "draft")!.id as number;
    const completed = campaigns.find((c) => c.status === "completed")!.id as number;

    screens.push({
      name: "campaign-draft",
      title: "A draft campaign",
      payload: message(await answer(`campaign ${draft}`)),
    });

    // The launch: every message Slack shows for one confirmed send.
    const ask = await h.req.command(`campaign ${draft} send`, { user: ALICE });
    const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
    screens.push({ name: "campaign-send-confirm", title: "Send, confirm", payload: message(prompt.body) });
    const confirm = buttonsOf(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm))!;
    const before = h.fake.messages.length;
    await h.req.blockAction(
      { action_id: confirm.action_id!, value: confirm.value },
      { responseUrl: ask.responseUrl, user: ALICE },
    );
    await eventually(async () => (await h.runtime.progress.store.live())[0], "the tracked message");
    await h.sandbox.tick();
    await h.runtime.progress.step();
    // What stays: the prompt (one person's) is gone, the channel has the one card.
    const launched = h.fake.messages.slice(before).filter((m) => !m.deleted);
    const updated = h.fake.callsOf("chat.update").at(-1)?.args;
    screens.push({
      name: "campaign-launch",
      title: "A confirmed send, as the channel sees it",
      payload: launched.map((m) => (updated && updated.ts === m.ts ? message(updated) : message(m))),
    });

    // Seeded after the launch: the sandbox's ticks would move it on.
    const running = await seedCampaign(h.sandbox.db, {
      name: "Black Friday 2026",
      status: "running",
      counts: { pending: 188, sent: 200, delivered: 300, read: 287, failed: 25 },
    });
    screens.push({
      name: "campaign-running",
      title: "A running campaign",
      payload: message(await answer(`campaign ${running}`)),
    });

    // The report, with its chart.
    const rep = await h.req.command(`report now ${completed}`, { user: ALICE });
    await h.fake.waitForResponse(rep.responseUrl as string);
    const post = await h.fake.waitFor(() =>
      [...h.fake.messages].reverse().find((m) => /report/i.test(m.text ?? "")),
    );
    screens.push({ name: "report", title: "A report", payload: message(post) });

    screens.push({ name: "contact", title: "A contact", payload: message(await answer("contact 1")) });
    screens.push({ name: "chat-user", title: "A chat user", payload: message(await answer("user 1")) });

    // Answers after a write, lists and refusals that name things (issue 22).
    const more: Array<[string, string, string]> = [
      ["help", "Help", "help"],
      ["templates", "The templates", "templates"],
      ["recipients", "A campaign's recipients", `campaign ${completed} recipients limit=5`],
      ["cancel-completed", "Cancel a completed campaign", `campaign ${completed} cancel`],
      [
        "campaign-add",
        "A new draft campaign",
        "campaign add Autumn news template=1 group=1 first_name=Ana order_id=A-7",
      ],
      [
        "send-template",
        "A template sent to one person",
        "send contact:1 channel=1 template=order_update lang=en first_name=Ana order_id=A-7",
      ],
      ["report-all", "A report of all campaigns", "report now all"],
    ];
    // An answer for the channel is posted (chat.postMessage), one for the person goes to response_url.
    const answerAny = async (line: string) => {
      const before = h.fake.messages.length;
      const res = await h.req.command(line, { user: ALICE });
      return h.fake.waitFor(
        () =>
          (h.fake.responsesTo(res.responseUrl as string)[0]?.body as Json | undefined) ??
          (h.fake.messages.slice(before).find((m) => !m.user) as Json | undefined),
        30_000,
        line,
      );
    };
    for (const [name, title, line] of more) {
      screens.push({ name, title, payload: message(await answerAny(line)) });
    }

    const n = h.fake.callsOf("views.publish").length;
    await h.req.event({ type: "app_home_opened", user: ALICE.id, channel: "D0HOME", tab: "home" });
    const home = await h.fake.waitFor(
      () =>
        h.fake
          .callsOf("views.publish")
          .slice(n)
          .find((c) => /\d+ of [\d,]+ processed/.test(textOf((c.args.view as { blocks: unknown[] }).blocks))),
      30_000,
    );
    screens.push({ name: "home", title: "App Home", payload: home.args.view as Json });
    await opts.keep?.(h);
    return screens;
  } finally {
    await h.close();
  }
}
