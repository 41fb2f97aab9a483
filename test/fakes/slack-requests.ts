// Sends what Slack sends to an app's Request URL, signed as Slack signs it
// (v0 HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret), so the
// Bolt HTTP receiver's real verification runs. response_url and trigger_id
// come from the fake Slack, which records what the app posts back.
// Every payload names the workspace it comes from (a FakeSender: the fake's
// own team, or asTeam's) and carries a trigger issued to that workspace. What
// a person does inside a modal (view_submission, block_actions, block_suggestion)
// is built from the view the fake stored: its id, hash, workspace, callback_id
// and private_metadata, as Slack sends them; only the state is the test's.
import { createHmac, randomBytes } from "node:crypto";
import type { FakeExecution, FakeSender, FakeSlack, FakeView } from "./slack.ts";

export interface SlackUserRef {
  id: string;
  name?: string;
}

export interface SentRequest {
  status: number;
  body: string;
  responseUrl?: string;
  triggerId?: string;
}

export interface SignOptions {
  /** Seconds since the epoch; default now. A value over 5 minutes old is stale. */
  timestamp?: number;
  /** Sign with this secret instead of the right one. */
  secret?: string;
  /** Extra headers, for example X-Slack-Retry-Num. */
  headers?: Record<string, string>;
}

export function sign(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export class SlackRequests {
  /** http://127.0.0.1:<port>/slack/events */
  readonly eventsUrl: string;
  readonly signingSecret: string;
  readonly fake: FakeSlack;
  /** The workspace these requests come from (default: the fake's own team). */
  readonly sender: FakeSender;
  constructor(eventsUrl: string, signingSecret: string, fake: FakeSlack, sender?: FakeSender) {
    this.eventsUrl = eventsUrl;
    this.signingSecret = signingSecret;
    this.fake = fake;
    this.sender = sender ?? fake.sender();
  }

  /**
   * The same requests from another workspace of the fake (addTeam): its team
   * id and bot user in every payload, its triggers (many-workspace mode).
   */
  asTeam(teamId: string, botUserId?: string): SlackRequests {
    return new SlackRequests(
      this.eventsUrl,
      this.signingSecret,
      this.fake,
      this.fake.sender(teamId, botUserId),
    );
  }

  private async postPayload(
    payload: unknown,
    opts: SignOptions = {},
  ): Promise<{ status: number; body: string }> {
    return this.post(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      "application/x-www-form-urlencoded",
      opts,
    );
  }

  async post(
    body: string,
    contentType: string,
    opts: SignOptions = {},
  ): Promise<{ status: number; body: string }> {
    const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
    const res = await fetch(this.eventsUrl, {
      method: "POST",
      headers: {
        "content-type": contentType,
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": sign(opts.secret ?? this.signingSecret, timestamp, body),
        ...opts.headers,
      },
      body,
    });
    return { status: res.status, body: await res.text() };
  }

  /** A slash command, form-encoded, with a fresh response_url and trigger_id from the fake. */
  async command(text: string, opts: SignOptions & CommandOptions = {}): Promise<SentRequest> {
    const { payload, responseUrl, triggerId } = slashCommand(this.fake, text, { as: this.sender, ...opts });
    const res = await this.post(
      new URLSearchParams(payload).toString(),
      "application/x-www-form-urlencoded",
      opts,
    );
    return { ...res, responseUrl, triggerId };
  }

  /** A block_actions payload: one button click on a message. */
  async blockAction(action: ButtonAction, opts: SignOptions & BlockActionOptions = {}): Promise<SentRequest> {
    const { payload, responseUrl, triggerId } = blockActions(this.fake, action, { as: this.sender, ...opts });
    const res = await this.postPayload(payload, opts);
    return { ...res, responseUrl, triggerId };
  }

  /**
   * A view_submission payload. When `view.id` names a view the fake stored,
   * the payload is built from it (viewSubmission below: its workspace, hash,
   * metadata), with `view.state`; else (a view Slack never saw) from what is
   * given, in this sender's workspace.
   */
  async viewSubmission(
    view: {
      id?: string;
      callback_id: string;
      private_metadata?: string;
      state?: Record<string, unknown>;
      /** The view's own members, as Slack sends them with the state. */
      blocks?: unknown[];
      title?: unknown;
      submit?: unknown;
      close?: unknown;
    },
    opts: SignOptions & { user?: SlackUserRef } = {},
  ): Promise<SentRequest> {
    const stored = view.id ? this.fake.view(view.id) : undefined;
    if (stored) return this.submitView(stored.id, view.state ?? {}, opts);
    const s = this.sender;
    const unseen: FakeView = {
      id: view.id ?? "V0VIEW",
      hash: "1.abc",
      view: {
        type: "modal",
        callback_id: view.callback_id,
        private_metadata: view.private_metadata ?? "",
        ...(view.blocks ? { blocks: view.blocks } : {}),
        ...(view.title ? { title: view.title } : {}),
        ...(view.submit ? { submit: view.submit } : {}),
        ...(view.close ? { close: view.close } : {}),
      },
      team: s.key,
      teamId: s.teamId,
      appInstalledTeamId: s.isEnterpriseInstall ? (s.enterpriseId ?? s.teamId) : s.teamId,
      ...(s.enterpriseId ? { enterpriseId: s.enterpriseId } : {}),
    };
    const { payload, triggerId } = viewSubmission(this.fake, unseen, view.state ?? {}, opts);
    return { ...(await this.postPayload(payload, opts)), triggerId };
  }

  /** Submits the stored view `viewId` with these state values (Slack's `view.state.values`). */
  async submitView(
    viewId: string,
    state: Record<string, unknown>,
    opts: SignOptions & { user?: SlackUserRef } = {},
  ): Promise<SentRequest> {
    const { payload, triggerId } = viewSubmission(this.fake, storedView(this.fake, viewId), state, opts);
    return { ...(await this.postPayload(payload, opts)), triggerId };
  }

  /** A block_actions payload from inside the stored view `viewId` (a choice or a button in a modal). */
  async viewAction(
    viewId: string,
    action: Record<string, unknown> & { action_id: string; block_id: string },
    state: Record<string, unknown>,
    opts: SignOptions & { user?: SlackUserRef } = {},
  ): Promise<SentRequest> {
    const { payload, triggerId } = viewAction(this.fake, storedView(this.fake, viewId), action, state, opts);
    return { ...(await this.postPayload(payload, opts)), triggerId };
  }

  /** A block_suggestion payload: what the person typed in an external select of the stored view `viewId`. */
  async blockSuggestion(
    viewId: string,
    select: { action_id: string; block_id: string; value: string },
    state: Record<string, unknown>,
    opts: SignOptions & { user?: SlackUserRef } = {},
  ): Promise<SentRequest> {
    const payload = blockSuggestion(this.fake, storedView(this.fake, viewId), select, state, opts);
    return this.postPayload(payload, opts);
  }

  /** An Events API event_callback (JSON). Pass the same eventId with retryNum to simulate Slack's retries. */
  async event(
    event: Record<string, unknown>,
    opts: SignOptions & {
      eventId?: string;
      eventTime?: number;
      retryNum?: number;
      retryReason?: string;
    } = {},
  ): Promise<SentRequest & { eventId: string }> {
    const { payload, eventId } = eventCallback(this.fake, event, { as: this.sender, ...opts });
    const headers = { ...opts.headers };
    if (opts.retryNum !== undefined) {
      headers["x-slack-retry-num"] = String(opts.retryNum);
      headers["x-slack-retry-reason"] = opts.retryReason ?? "http_timeout";
    }
    const res = await this.post(JSON.stringify(payload), "application/json", { ...opts, headers });
    return { ...res, eventId };
  }

  /**
   * A workflow runs one of the app's custom steps: the fake Slack creates the
   * execution and this delivers its `function_executed` event. Pass
   * `execution` to deliver an earlier one again (a new event id, as when
   * Slack sends the same execution twice).
   */
  async functionExecuted(
    callbackId: string,
    inputs: Record<string, unknown>,
    opts: SignOptions & { execution?: FakeExecution; eventId?: string; retryNum?: number } = {},
  ): Promise<SentRequest & { eventId: string; execution: FakeExecution }> {
    const execution =
      opts.execution ?? this.fake.executeFunction(callbackId, inputs, { team: this.sender.key }).execution;
    const res = await this.event(this.fake.functionEvent(execution), opts);
    return { ...res, execution };
  }

  /**
   * A shortcut: global (the shortcuts menu, no channel) or, with `message`,
   * a message shortcut on that message (its channel and a response_url).
   */
  async shortcut(
    callbackId: string,
    opts: SignOptions & {
      user?: SlackUserRef;
      message?: { text: string; ts?: string; user?: string };
      channelId?: string;
    } = {},
  ): Promise<SentRequest> {
    const user = opts.user ?? { id: "U0ALICE", name: "alice" };
    const s = this.sender;
    const triggerId = this.fake.newTriggerId(s.key);
    const common = {
      token: "deprecated-verification-token",
      action_ts: `${Date.now() / 1000}`,
      team: teamOf(s),
      user: { id: user.id, username: user.name ?? user.id, team_id: s.teamId },
      is_enterprise_install: s.isEnterpriseInstall,
      enterprise: enterpriseOf(s),
      callback_id: callbackId,
      trigger_id: triggerId,
    };
    let responseUrl: string | undefined;
    let payload: Record<string, unknown>;
    if (opts.message) {
      responseUrl = this.fake.newResponseUrl();
      const ts = opts.message.ts ?? `${Math.floor(Date.now() / 1000)}.000200`;
      payload = {
        type: "message_action",
        ...common,
        channel: { id: opts.channelId ?? this.fake.generalOf(s.teamId), name: "general" },
        response_url: responseUrl,
        message_ts: ts,
        message: { type: "message", user: opts.message.user ?? "U0BOB", ts, text: opts.message.text },
      };
    } else payload = { type: "shortcut", ...common };
    const res = await this.postPayload(payload, opts);
    return { ...res, responseUrl, triggerId };
  }
}

// What Slack sends, built apart from how it arrives (a signed HTTP request
// here, a Socket Mode envelope in test/fakes/socket-mode.ts): the payloads
// of a slash command, a button click and an event.

/** The `team` of an interaction payload. */
function teamOf(s: FakeSender): Record<string, unknown> {
  return {
    id: s.teamId,
    domain: "fake",
    ...(s.enterpriseId ? { enterprise_id: s.enterpriseId } : {}),
  };
}

/** The `enterprise` of an interaction payload (null outside Enterprise Grid). */
function enterpriseOf(s: FakeSender): Record<string, unknown> | null {
  return s.enterpriseId ? { id: s.enterpriseId, name: s.enterpriseId } : null;
}

function userOf(user: SlackUserRef, teamId: string): Record<string, unknown> {
  return { id: user.id, username: user.name ?? user.id, name: user.name ?? user.id, team_id: teamId };
}

export interface CommandOptions {
  /** The workspace it comes from (default: the fake's own team). */
  as?: FakeSender;
  command?: string;
  user?: SlackUserRef;
  channelId?: string;
  channelName?: string;
}

/** A slash command's fields, with a fresh response_url and trigger_id from the fake. */
export function slashCommand(
  fake: FakeSlack,
  text: string,
  opts: CommandOptions = {},
): { payload: Record<string, string>; responseUrl: string; triggerId: string } {
  const s = opts.as ?? fake.sender();
  const responseUrl = fake.newResponseUrl();
  const triggerId = fake.newTriggerId(s.key);
  const user = opts.user ?? { id: "U0ALICE", name: "alice" };
  const payload = {
    token: "deprecated-verification-token",
    team_id: s.teamId,
    team_domain: "fake",
    ...(s.enterpriseId ? { enterprise_id: s.enterpriseId, enterprise_name: s.enterpriseId } : {}),
    channel_id: opts.channelId ?? fake.generalOf(s.teamId),
    channel_name: opts.channelName ?? "general",
    user_id: user.id,
    user_name: user.name ?? user.id,
    command: opts.command ?? "/sb",
    text,
    api_app_id: "A0SWITCH",
    is_enterprise_install: String(s.isEnterpriseInstall),
    response_url: responseUrl,
    trigger_id: triggerId,
  };
  return { payload, responseUrl, triggerId };
}

export interface ButtonAction {
  action_id: string;
  value?: string;
  block_id?: string;
  /** A users select instead of a button: the person picked. */
  selected_user?: string;
  /** A static select instead of a button: the option picked (its value). */
  selected_option?: { value: string; text?: string };
}

export interface BlockActionOptions {
  /** The workspace it comes from (default: the fake's own team). */
  as?: FakeSender;
  user?: SlackUserRef;
  channelId?: string;
  /** Ephemeral (default) or a channel message with this ts. */
  messageTs?: string;
  message?: { text?: string; blocks?: unknown[] };
  responseUrl?: string;
  /** A button on the Home tab: no channel and no response_url. */
  home?: boolean;
}

/** A block_actions payload: one button click on a message (or the Home tab). */
export function blockActions(
  fake: FakeSlack,
  action: ButtonAction,
  opts: BlockActionOptions = {},
): { payload: Record<string, unknown>; responseUrl?: string; triggerId: string } {
  const s = opts.as ?? fake.sender();
  const responseUrl = opts.home ? undefined : (opts.responseUrl ?? fake.newResponseUrl());
  const triggerId = fake.newTriggerId(s.key);
  const user = opts.user ?? { id: "U0ALICE", name: "alice" };
  const channelId = opts.channelId ?? fake.generalOf(s.teamId);
  const ephemeral = opts.messageTs === undefined;
  const ts = opts.messageTs ?? `${Math.floor(Date.now() / 1000)}.000100`;
  const where = opts.home
    ? { container: { type: "view", view_id: "V0HOME" }, view: { id: "V0HOME", type: "home", blocks: [] } }
    : {
        container: { type: "message", message_ts: ts, channel_id: channelId, is_ephemeral: ephemeral },
        channel: { id: channelId, name: "general" },
        message: ephemeral
          ? undefined
          : { type: "message", ts, text: opts.message?.text, blocks: opts.message?.blocks },
        response_url: responseUrl,
      };
  const payload = {
    type: "block_actions",
    user: userOf(user, s.teamId),
    api_app_id: "A0SWITCH",
    token: "deprecated-verification-token",
    ...where,
    trigger_id: triggerId,
    team: teamOf(s),
    enterprise: enterpriseOf(s),
    is_enterprise_install: s.isEnterpriseInstall,
    actions: [
      {
        action_id: action.action_id,
        block_id: action.block_id ?? randomBytes(3).toString("hex"),
        action_ts: `${Date.now() / 1000}`,
        ...(action.selected_user
          ? { type: "users_select", selected_user: action.selected_user }
          : action.selected_option
            ? {
                type: "static_select",
                selected_option: {
                  value: action.selected_option.value,
                  text: {
                    type: "plain_text",
                    text: action.selected_option.text ?? action.selected_option.value,
                  },
                },
              }
            : { type: "button", value: action.value, text: { type: "plain_text", text: "button" } }),
      },
    ],
  };
  return { payload, responseUrl, triggerId };
}

/** An Events API event_callback; the same eventId again is Slack delivering it again. */
export function eventCallback(
  fake: FakeSlack,
  event: Record<string, unknown>,
  opts: { eventId?: string; eventTime?: number; as?: FakeSender } = {},
): { payload: Record<string, unknown>; eventId: string } {
  const s = opts.as ?? fake.sender();
  const eventId = opts.eventId ?? `Ev${randomBytes(5).toString("hex").toUpperCase()}`;
  const payload = {
    token: "deprecated-verification-token",
    team_id: s.teamId,
    ...(s.enterpriseId ? { enterprise_id: s.enterpriseId } : {}),
    api_app_id: "A0SWITCH",
    event: { event_ts: `${Date.now() / 1000}`, ...event },
    type: "event_callback",
    event_id: eventId,
    event_time: opts.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: [
      {
        // An org-wide install's authorization is the enterprise's: no team, as Slack sends it.
        team_id: s.isEnterpriseInstall ? null : s.teamId,
        ...(s.enterpriseId ? { enterprise_id: s.enterpriseId } : {}),
        user_id: s.botUserId,
        is_bot: true,
        is_enterprise_install: s.isEnterpriseInstall,
      },
    ],
  };
  return { payload, eventId };
}

// ---- inside a modal: built from the view the fake stored -------------------

/** The stored view, or a clear failure: Slack sends nothing for a view it never showed. */
function storedView(fake: FakeSlack, viewId: string): FakeView {
  const v = fake.view(viewId);
  if (!v) throw new Error(`fake Slack: no view ${viewId} (the app never opened it)`);
  return v;
}

/** The workspace a stored view is in, as the sender of what is done in it. */
function viewSender(fake: FakeSlack, v: FakeView): FakeSender {
  return {
    key: v.team,
    teamId: v.teamId,
    botUserId: fake.sender(v.teamId).botUserId,
    ...(v.enterpriseId ? { enterpriseId: v.enterpriseId } : {}),
    isEnterpriseInstall: v.appInstalledTeamId !== v.teamId,
  };
}

/**
 * The `view` of a payload from inside a modal, as Slack sends it: the stored
 * view's members, id, hash, its workspace (team_id) and the installing team
 * (app_installed_team_id, which Bolt authorizes a submission by), and the state.
 */
export function viewPayload(v: FakeView, state: Record<string, unknown>): Record<string, unknown> {
  return {
    ...v.view,
    id: v.id,
    team_id: v.teamId,
    app_installed_team_id: v.appInstalledTeamId,
    type: v.view.type ?? "modal",
    callback_id: v.view.callback_id ?? "",
    private_metadata: v.view.private_metadata ?? "",
    state: { values: state },
    hash: v.hash,
    root_view_id: v.id,
    previous_view_id: null,
    app_id: "A0SWITCH",
  };
}

/** A payload from inside a stored view, as Slack sends both kinds: from its workspace, by the person (Alice unless named), on a new trigger of the view, with the view's state; `own` adds the fields of its kind. */
function fromView(
  fake: FakeSlack,
  v: FakeView,
  state: Record<string, unknown>,
  opts: { user?: SlackUserRef },
  own: (s: FakeSender) => Record<string, unknown>,
): { payload: Record<string, unknown>; triggerId: string } {
  const s = viewSender(fake, v);
  const triggerId = fake.newTriggerId(s.key, v.id);
  const payload = {
    user: userOf(opts.user ?? { id: "U0ALICE", name: "alice" }, s.teamId),
    api_app_id: "A0SWITCH",
    token: "deprecated-verification-token",
    trigger_id: triggerId,
    enterprise: enterpriseOf(s),
    is_enterprise_install: s.isEnterpriseInstall,
    view: viewPayload(v, state),
    ...own(s),
  };
  return { payload, triggerId };
}

/**
 * A view_submission of a stored view. Its team is the view's workspace
 * (null for an org-wide install, as Slack sends it: Bolt then reads
 * app_installed_team_id and the enterprise), and its trigger is that workspace's.
 */
export function viewSubmission(
  fake: FakeSlack,
  v: FakeView,
  state: Record<string, unknown>,
  opts: { user?: SlackUserRef } = {},
): { payload: Record<string, unknown>; triggerId: string } {
  return fromView(fake, v, state, opts, (s) => ({
    type: "view_submission",
    team: s.isEnterpriseInstall ? null : teamOf(s),
    response_urls: [],
  }));
}

/** A block_actions from inside a stored view: one action (a choice or a button), with the view's state. */
export function viewAction(
  fake: FakeSlack,
  v: FakeView,
  action: Record<string, unknown> & { action_id: string; block_id: string },
  state: Record<string, unknown>,
  opts: { user?: SlackUserRef } = {},
): { payload: Record<string, unknown>; triggerId: string } {
  return fromView(fake, v, state, opts, (s) => ({
    type: "block_actions",
    container: { type: "view", view_id: v.id },
    team: teamOf(s),
    actions: [{ ...action, action_ts: `${Date.now() / 1000}` }],
  }));
}

/** A block_suggestion from an external select of a stored view: what the person typed. */
export function blockSuggestion(
  fake: FakeSlack,
  v: FakeView,
  select: { action_id: string; block_id: string; value: string },
  state: Record<string, unknown>,
  opts: { user?: SlackUserRef } = {},
): Record<string, unknown> {
  const s = viewSender(fake, v);
  const user = opts.user ?? { id: "U0ALICE", name: "alice" };
  return {
    type: "block_suggestion",
    user: userOf(user, s.teamId),
    container: { type: "view", view_id: v.id },
    api_app_id: "A0SWITCH",
    token: "deprecated-verification-token",
    action_id: select.action_id,
    block_id: select.block_id,
    value: select.value,
    team: teamOf(s),
    enterprise: enterpriseOf(s),
    is_enterprise_install: s.isEnterpriseInstall,
    view: viewPayload(v, state),
  };
}
