// A workspace's automations (issue 40 §3): its hooks added, listed, removed,
// tested, their secrets rotated, failed deliveries tried again, and its events
// handed to them. An event becomes one delivery per hook that wants it (stored
// first, so nothing is lost when the queue is away), then a job of the queue
// (worker.ts). The URL and the secret are sealed like API keys
// (src/platform/secrets.ts) and shown masked; the secret is shown once.
import type { WorkspaceId } from "../domain/workspace.ts";
import { hideSecrets, type Logger } from "../platform/log.ts";
import type { Keyring } from "../platform/secrets.ts";
import type { AuditEntry } from "../store/audit.ts";
import { type AutomationStore, type HookRow, resealHooks } from "../store/automations.ts";
import type { Db } from "../store/db.ts";
import { type AddressRules, addressProblem, isWorkflowTrigger, maskUrl, parseHookUrl } from "./address.ts";
import {
  EVENT_TYPES,
  type EventType,
  isConversationEvent,
  isEventType,
  makeEvent,
  type SwitchboardEvent,
  testEvent,
} from "./events.ts";
import { eventOfAudit } from "./from-audit.ts";
import { type AttemptResult, attempt, newSecret } from "./send.ts";

/** What the queue carries: which delivery to try (the row is the truth). */
export interface DeliveryJob {
  workspace: WorkspaceId;
  hook: number;
  eventId: string;
}

export interface DeliveryQueue {
  enqueue(job: DeliveryJob, startAfterSeconds?: number): Promise<void>;
}

export interface AutomationDeps {
  /** SWITCHBOARD_SECRET_KEY's keyring; unset: hooks cannot be kept (added ones are refused in words). */
  keyring?: Keyring;
  rules: AddressRules;
  /** The delivery queue once it runs; unset: deliveries wait in the store for its start. */
  queue?: () => DeliveryQueue | undefined;
  now?: () => Date;
  logger?: Logger;
}

export const urlContext = (workspace: WorkspaceId, n: number) => `automation_url:${workspace}:${n}`;
export const secretContext = (workspace: WorkspaceId, n: number) => `automation_secret:${workspace}:${n}`;

export type AddOutcome =
  | { ok: true; number: number; masked: string; kind: HookRow["kind"]; secret?: string }
  | { ok: false; message: string };

/** A hook's URL and secret, opened. */
export function openHook(keyring: Keyring, h: HookRow): { url: string; secret: string | null } {
  const url = keyring.open(h.urlSealed, urlContext(h.workspace, h.number)).value;
  const secret = h.secretSealed
    ? keyring.open(h.secretSealed, secretContext(h.workspace, h.number)).value
    : null;
  hideSecrets(url, secret ?? undefined);
  return { url, secret };
}

/** Hooks sealed with SWITCHBOARD_SECRET_KEY_PREVIOUS sealed again with the current key (at start); how many. */
export function resealAutomations(db: Db, keyring: Keyring): Promise<number> {
  return resealHooks(db, (h) => {
    if (!keyring.isStale(h.urlSealed) && !(h.secretSealed && keyring.isStale(h.secretSealed)))
      return undefined;
    const { url, secret } = openHook(keyring, h);
    return {
      url: keyring.seal(url, urlContext(h.workspace, h.number)),
      secret: secret === null ? null : keyring.seal(secret, secretContext(h.workspace, h.number)),
    };
  });
}

export class Automations {
  readonly store: AutomationStore;
  readonly workspace: WorkspaceId;
  private readonly deps: AutomationDeps;

  /** `store`: the workspace's hooks and deliveries (its stores'). */
  constructor(deps: AutomationDeps, store: AutomationStore) {
    this.deps = deps;
    this.workspace = store.workspace;
    this.store = store;
  }

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  /** A new hook of `event` to `urlText`, checked first; an endpoint's secret comes back once. */
  async add(event: string, urlText: string, by: string, inbox?: string): Promise<AddOutcome> {
    if (!isEventType(event))
      return { ok: false, message: `There is no event ${event}. The events: ${EVENT_TYPES.join(", ")}.` };
    const keyring = this.deps.keyring;
    if (!keyring)
      return {
        ok: false,
        message:
          "Automations need SWITCHBOARD_SECRET_KEY (their addresses are kept encrypted): ask whoever runs Switchboard to set it.",
      };
    if (inbox && !isConversationEvent(event))
      return {
        ok: false,
        message: `Only conversation events can be limited to one inbox; ${event} is not one.`,
      };
    const url = parseHookUrl(urlText, this.deps.rules);
    if (typeof url === "string") return { ok: false, message: url };
    const problem = await addressProblem(url, this.deps.rules);
    if (problem) return { ok: false, message: problem };
    const kind = isWorkflowTrigger(url) ? "workflow" : "endpoint";
    const secret = kind === "endpoint" ? newSecret() : undefined;
    const href = url.toString();
    hideSecrets(href, secret);
    const masked = maskUrl(href);
    const number = await this.store.add({
      event,
      kind,
      urlMasked: masked,
      inbox: inbox ?? null,
      by,
      now: this.now(),
      seal: (n) => ({
        url: keyring.seal(href, urlContext(this.workspace, n)),
        secret: secret ? keyring.seal(secret, secretContext(this.workspace, n)) : null,
      }),
    });
    return { ok: true, number, masked, kind, ...(secret ? { secret } : {}) };
  }

  list(): Promise<HookRow[]> {
    return this.store.list();
  }

  remove(number: number): Promise<boolean> {
    return this.store.remove(number);
  }

  /** A new secret for an endpoint (shown once); undefined when there is no such endpoint. */
  async rotate(number: number): Promise<string | undefined> {
    const keyring = this.deps.keyring;
    const h = await this.store.get(number);
    if (!keyring || !h || h.kind !== "endpoint") return undefined;
    const secret = newSecret();
    hideSecrets(secret);
    const ok = await this.store.setSecret(
      number,
      keyring.seal(secret, secretContext(this.workspace, number)),
    );
    return ok ? secret : undefined;
  }

  /** A test event of the hook's type, sent now, once; what the receiver answered. */
  async test(number: number): Promise<AttemptResult | undefined> {
    const keyring = this.deps.keyring;
    const h = await this.store.get(number);
    if (!keyring || !h || !isEventType(h.event)) return undefined;
    const { url, secret } = openHook(keyring, h);
    return attempt(
      { url, kind: h.kind, secret },
      testEvent(h.event, this.workspace, this.now()),
      this.deps.rules,
    );
  }

  /** A hook's failed deliveries tried again; how many. */
  async retry(number: number): Promise<number> {
    const ids = await this.store.retryFailed(number, this.now());
    for (const eventId of ids) await this.enqueue({ workspace: this.workspace, hook: number, eventId });
    return ids.length;
  }

  /**
   * An event of this workspace, to every hook that wants it (a conversation's
   * event only to hooks of every inbox or of its own); the event.
   */
  async emit(
    type: EventType,
    fields: Partial<Record<string, string | number | undefined | null>>,
  ): Promise<SwitchboardEvent | undefined> {
    const inbox = isConversationEvent(type) ? String(fields.inbox_channel ?? "") : undefined;
    const hooks = await this.store.hooksOf(type, inbox);
    if (!hooks.length) return undefined;
    const now = this.now();
    const event = makeEvent(type, this.workspace, fields, now);
    const body = JSON.stringify(event);
    for (const h of hooks) {
      if (await this.store.addDelivery(h.number, event.id, type, body, now))
        await this.enqueue({ workspace: this.workspace, hook: h.number, eventId: event.id });
    }
    return event;
  }

  /** An audited write of this workspace: the event it is, if any, to the hooks that want it (errors logged). */
  async onAudit(entry: AuditEntry): Promise<void> {
    const e = eventOfAudit(entry);
    if (!e) return;
    await this.emit(e.type, e.fields).catch((err) =>
      this.deps.logger?.warn(
        { err: String(err), workspace: this.workspace, event: e.type },
        "an event could not be kept for its automations",
      ),
    );
  }

  private async enqueue(job: DeliveryJob): Promise<void> {
    const queue = this.deps.queue?.();
    if (!queue) return; // kept pending: the worker's sweep queues it
    await queue
      .enqueue(job)
      .catch((err) =>
        this.deps.logger?.warn(
          { err: String(err), workspace: job.workspace, hook: job.hook },
          "could not queue an automation's delivery: the sweep queues it",
        ),
      );
  }
}
