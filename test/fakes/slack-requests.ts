// Sends what Slack sends to an app's Request URL, signed as Slack signs it
// (v0 HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret), so the
// Bolt HTTP receiver's real verification runs. response_url and trigger_id
// come from the fake Slack, which records what the app posts back.
import { createHmac, randomBytes } from "node:crypto";
import type { FakeExecution, FakeSlack } from "./slack.ts";

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
  constructor(eventsUrl: string, signingSecret: string, fake: FakeSlack) {
    this.eventsUrl = eventsUrl;
    this.signingSecret = signingSecret;
    this.fake = fake;
  }

  /**
   * The same requests from another workspace of the fake (addTeam): its team
   * id and bot user in every payload (many-workspace mode).
   */
  asTeam(teamId: string, botUserId?: string): SlackRequests {
    const fake = this.fake;
    const as = new Proxy(fake, {
      get(target, prop) {
        if (prop === "teamId") return teamId;
        if (prop === "botUserId" && botUserId) return botUserId;
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return new SlackRequests(this.eventsUrl, this.signingSecret, as);
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
    const { payload, responseUrl, triggerId } = slashCommand(this.fake, text, opts);
    const res = await this.post(
      new URLSearchParams(payload).toString(),
      "application/x-www-form-urlencoded",
      opts,
    );
    return { ...res, responseUrl, triggerId };
  }

  /** A block_actions payload: one button click on a message. */
  async blockAction(action: ButtonAction, opts: SignOptions & BlockActionOptions = {}): Promise<SentRequest> {
    const { payload, responseUrl, triggerId } = blockActions(this.fake, action, opts);
    const res = await this.post(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      "application/x-www-form-urlencoded",
      opts,
    );
    return { ...res, responseUrl, triggerId };
  }

  /** A view_submission payload for a modal the app opened. */
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
    const user = opts.user ?? { id: "U0ALICE", name: "alice" };
    const payload = {
      type: "view_submission",
      team: { id: this.fake.teamId, domain: "fake" },
      user: {
        id: user.id,
        username: user.name ?? user.id,
        name: user.name ?? user.id,
        team_id: this.fake.teamId,
      },
      api_app_id: "A0SWITCH",
      token: "deprecated-verification-token",
      trigger_id: this.fake.newTriggerId(),
      view: {
        id: view.id ?? "V0VIEW",
        team_id: this.fake.teamId,
        type: "modal",
        callback_id: view.callback_id,
        private_metadata: view.private_metadata ?? "",
        ...(view.blocks ? { blocks: view.blocks } : {}),
        ...(view.title ? { title: view.title } : {}),
        ...(view.submit ? { submit: view.submit } : {}),
        ...(view.close ? { close: view.close } : {}),
        state: { values: view.state ?? {} },
        hash: "1.abc",
      },
      response_urls: [],
      is_enterprise_install: false,
    };
    return this.post(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      "application/x-www-form-urlencoded",
      opts,
    );
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
    const { payload, eventId } = eventCallback(this.fake, event, opts);
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
    const execution = opts.execution ?? this.fake.executeFunction(callbackId, inputs).execution;
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
    const triggerId = this.fake.newTriggerId();
    const common = {
      token: "deprecated-verification-token",
      action_ts: `${Date.now() / 1000}`,
      team: { id: this.fake.teamId, domain: "fake" },
      user: { id: user.id, username: user.name ?? user.id, team_id: this.fake.teamId },
      is_enterprise_install: false,
      enterprise: null,
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
        channel: { id: opts.channelId ?? "C0GENERAL", name: "general" },
        response_url: responseUrl,
        message_ts: ts,
        message: { type: "message", user: opts.message.user ?? "U0BOB", ts, text: opts.message.text },
      };
    } else payload = { type: "shortcut", ...common };
    const res = await this.post(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      "application/x-www-form-urlencoded",
      opts,
    );
    return { ...res, responseUrl, triggerId };
  }
}

// What Slack sends, built apart from how it arrives (a signed HTTP request
// here, a Socket Mode envelope in test/fakes/socket-mode.ts): the payloads
// of a slash command, a button click and an event.

export interface CommandOptions {
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
  const responseUrl = fake.newResponseUrl();
  const triggerId = fake.newTriggerId();
  const user = opts.user ?? { id: "U0ALICE", name: "alice" };
  const payload = {
    token: "deprecated-verification-token",
    team_id: fake.teamId,
    team_domain: "fake",
    channel_id: opts.channelId ?? "C0GENERAL",
    channel_name: opts.channelName ?? "general",
    user_id: user.id,
    user_name: user.name ?? user.id,
    command: opts.command ?? "/sb",
    text,
    api_app_id: "A0SWITCH",
    is_enterprise_install: "false",
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
}

export interface BlockActionOptions {
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
  const responseUrl = opts.home ? undefined : (opts.responseUrl ?? fake.newResponseUrl());
  const triggerId = fake.newTriggerId();
  const user = opts.user ?? { id: "U0ALICE", name: "alice" };
  const channelId = opts.channelId ?? "C0GENERAL";
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
    user: {
      id: user.id,
      username: user.name ?? user.id,
      name: user.name ?? user.id,
      team_id: fake.teamId,
    },
    api_app_id: "A0SWITCH",
    token: "deprecated-verification-token",
    ...where,
    trigger_id: triggerId,
    team: { id: fake.teamId, domain: "fake" },
    enterprise: null,
    is_enterprise_install: false,
    actions: [
      {
        action_id: action.action_id,
        block_id: action.block_id ?? randomBytes(3).toString("hex"),
        action_ts: `${Date.now() / 1000}`,
        ...(action.selected_user
          ? { type: "users_select", selected_user: action.selected_user }
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
  opts: { eventId?: string; eventTime?: number } = {},
): { payload: Record<string, unknown>; eventId: string } {
  const eventId = opts.eventId ?? `Ev${randomBytes(5).toString("hex").toUpperCase()}`;
  const payload = {
    token: "deprecated-verification-token",
    team_id: fake.teamId,
    api_app_id: "A0SWITCH",
    event: { event_ts: `${Date.now() / 1000}`, ...event },
    type: "event_callback",
    event_id: eventId,
    event_time: opts.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: fake.teamId, user_id: fake.botUserId, is_bot: true }],
  };
  return { payload, eventId };
}
