// What Slack sends while a user works in a modal the app opened: the form's
// state as Slack builds it from the view's elements, block_actions and
// block_suggestion payloads from inside the view, and view_submission, all
// signed and sent through SlackRequests.post to the real Bolt app.
import { randomBytes } from "node:crypto";
import type { FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests, SlackUserRef } from "../fakes/slack-requests.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely by tests.
type Json = any;

/** A user's entries: block id → text, option value(s), unix time, date, or file ids. */
export type Entries = Record<string, string | string[] | number | undefined>;

function element(view: Json, blockId: string): Json | undefined {
  return (view.blocks as Json[]).find((b) => b.block_id === blockId)?.element;
}

function optionFor(el: Json, value: string): Json {
  const found = (el.options as Json[] | undefined)?.find((o) => o.value === value);
  return found ?? { text: { type: "plain_text", text: value }, value };
}

/** The state Slack would submit: every input's current value, `entries` over the view's initial values. */
export function stateOf(view: Json, entries: Entries = {}): Json {
  const values: Json = {};
  for (const b of view.blocks as Json[]) {
    if (b.type !== "input" && b.type !== "actions") continue;
    if (b.type === "actions") continue;
    const el = b.element as Json;
    const given = entries[b.block_id];
    let v: Json = { type: el.type };
    switch (el.type) {
      case "plain_text_input":
      case "email_text_input":
      case "url_text_input":
      case "number_input":
        v.value = given !== undefined ? String(given) : (el.initial_value ?? null);
        break;
      case "static_select":
      case "external_select":
      case "radio_buttons":
        v.selected_option = given !== undefined ? optionFor(el, String(given)) : (el.initial_option ?? null);
        break;
      case "multi_static_select":
      case "multi_external_select":
      case "checkboxes":
        v.selected_options =
          given !== undefined
            ? (Array.isArray(given) ? given : [String(given)]).map((x) => optionFor(el, x))
            : (el.initial_options ?? []);
        break;
      case "multi_users_select":
        v.selected_users =
          given !== undefined ? (Array.isArray(given) ? given : [String(given)]) : (el.initial_users ?? []);
        break;
      case "conversations_select":
        v.selected_conversation = given !== undefined ? String(given) : (el.initial_conversation ?? null);
        break;
      case "datetimepicker":
        v.selected_date_time = given !== undefined ? Number(given) : (el.initial_date_time ?? null);
        break;
      case "datepicker":
        v.selected_date = given !== undefined ? String(given) : (el.initial_date ?? null);
        break;
      case "file_input":
        v.files = (Array.isArray(given) ? given : given ? [String(given)] : []).map((id) => ({ id }));
        break;
      default:
        v = { type: el.type };
    }
    values[b.block_id] = { [el.action_id]: v };
  }
  return values;
}

export class Forms {
  readonly req: SlackRequests;
  readonly fake: FakeSlack;
  readonly user: SlackUserRef;
  constructor(req: SlackRequests, fake: FakeSlack, user: SlackUserRef = { id: "U0ALICE", name: "alice" }) {
    this.req = req;
    this.fake = fake;
    this.user = user;
  }

  view(id: string): { id: string; hash: string; view: Json } {
    const v = this.fake.views.get(id);
    if (!v) throw new Error(`no view ${id}`);
    return v;
  }

  /** The `team` the fake records for a call made with this workspace's bot token: an installed team's (none: the default token). */
  private get callTeam(): string | undefined {
    const key = this.req.sender.key;
    return key !== this.fake.teamId || this.fake.teams.has(key) ? key : undefined;
  }

  /** Runs `/sb <line>` and waits for the modal it opens (with this workspace's token). */
  async open(line: string): Promise<{ id: string; hash: string; view: Json }> {
    const before = this.fake.callsOf("views.open").length;
    await this.req.command(line, { user: this.user });
    const call = await this.fake.waitFor(
      () =>
        this.fake
          .callsOf("views.open")
          .slice(before)
          .find((c) => c.response.ok === true && c.team === this.callTeam),
      15_000,
      `views.open for ${line}`,
    );
    return this.view((call.response.view as Json).id);
  }

  /** A choice inside the view (dispatch_action), waiting for the views.update it causes. */
  async act(
    viewId: string,
    blockId: string,
    entries: Entries = {},
    button?: { action_id: string; value: string },
  ): Promise<{ id: string; hash: string; view: Json }> {
    const stored = this.view(viewId);
    const state = stateOf(stored.view, entries);
    const el = element(stored.view, blockId);
    const updatesBefore = this.fake.callsOf("views.update").filter((c) => c.args.view_id === viewId).length;
    const action = button
      ? {
          type: "button",
          block_id: blockId,
          action_id: button.action_id,
          value: button.value,
          text: { type: "plain_text", text: "b" },
        }
      : {
          type: el?.type,
          block_id: blockId,
          action_id: el?.action_id,
          ...(Object.values(state[blockId] ?? {})[0] as Json),
        };
    // Built from the stored view (its workspace, hash, metadata) by the fake's builder.
    const res = await this.req.viewAction(viewId, action, state, { user: this.user });
    if (res.status !== 200) throw new Error(`block_actions answered ${res.status}`);
    await this.fake.waitFor(
      () =>
        this.fake.callsOf("views.update").filter((c) => c.args.view_id === viewId && c.response.ok === true)
          .length > updatesBefore,
      15_000,
      "views.update after a form action",
    );
    return this.view(viewId);
  }

  /** The options Slack would show for what the user typed in an external select. */
  async suggest(viewId: string, blockId: string, value: string, entries: Entries = {}): Promise<Json[]> {
    const stored = this.view(viewId);
    const el = element(stored.view, blockId);
    const res = await this.req.blockSuggestion(
      viewId,
      { action_id: el?.action_id, block_id: blockId, value },
      stateOf(stored.view, entries),
      { user: this.user },
    );
    if (res.status !== 200) throw new Error(`block_suggestion answered ${res.status}: ${res.body}`);
    return (JSON.parse(res.body) as { options: Json[] }).options;
  }

  /** Submits the view with these entries; returns Slack's answer (errors, update, or empty to close). */
  async submit(viewId: string, entries: Entries = {}): Promise<Json> {
    const stored = this.view(viewId);
    const res = await this.req.submitView(viewId, stateOf(stored.view, entries), { user: this.user });
    if (res.status !== 200) throw new Error(`view_submission answered ${res.status}: ${res.body}`);
    return res.body ? (JSON.parse(res.body) as Json) : {};
  }
}

export const blockIds = (view: Json) => (view.blocks as Json[]).map((b) => b.block_id).filter(Boolean);
export const randomName = (prefix: string) => `${prefix} ${randomBytes(3).toString("hex")}`;

/** The new-template form's entries for a good utility template, "Hi {{name}}" (Ana for its example). */
export const templateEntries = (name: string) => ({
  name,
  language: "en",
  category: "UTILITY",
  body: "Hi {{name}}",
  "example:name": "Ana",
});
