// Schema `automations` (issue 40 §3): a workspace's hooks (an event, where it
// goes, sealed: the URL and the secret are as good as passwords) and their
// deliveries (one row per hook and event id: pending, delivered or failed;
// claimed for a while by the replica that sends it, so one attempt runs at a
// time). Hooks are numbered per workspace, as `/sb automations` shows them;
// a hook's number is not used again while deliveries of it remain (removed with it).
// The queue's jobs (pg-boss) only say which delivery to try; the row is the truth.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Db, Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { PerWorkspace } from "./per-workspace.ts";

export const AUTOMATIONS_MIGRATIONS: MigrationSet = {
  schema: "automations",
  migrations: [
    {
      id: "001_hooks_and_deliveries",
      sql: `
create table automations.hooks (
  workspace text not null,
  number integer not null,
  event text not null,
  kind text not null check (kind in ('endpoint', 'workflow')),
  url_sealed text not null,
  url_masked text not null,
  secret_sealed text,
  inbox text,
  created_by text not null,
  created_at timestamptz not null,
  last_at timestamptz,
  last_state text,
  last_detail text,
  failures integer not null default 0,
  primary key (workspace, number)
);
create table automations.deliveries (
  workspace text not null,
  hook integer not null,
  event_id text not null,
  event text not null,
  body text not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  first_at timestamptz not null,
  next_at timestamptz not null,
  claimed_until timestamptz,
  last_at timestamptz,
  last_detail text,
  primary key (workspace, hook, event_id)
);
create index deliveries_pending on automations.deliveries (next_at) where state = 'pending';
`,
    },
  ],
};

export type HookKind = "endpoint" | "workflow";
export type DeliveryState = "pending" | "delivered" | "failed";

export interface HookRow {
  workspace: WorkspaceId;
  number: number;
  event: string;
  kind: HookKind;
  urlSealed: string;
  urlMasked: string;
  secretSealed: string | null;
  /** The inbox (Slack channel) its conversation events are limited to; null: every inbox. */
  inbox: string | null;
  createdBy: string;
  createdAt: Date;
  lastAt: Date | null;
  lastState: DeliveryState | null;
  lastDetail: string | null;
  /** Deliveries failed for good since the last success. */
  failures: number;
}

export interface DeliveryRow {
  workspace: WorkspaceId;
  hook: number;
  eventId: string;
  event: string;
  body: string;
  state: DeliveryState;
  attempts: number;
  firstAt: Date;
  nextAt: Date;
  lastAt: Date | null;
  lastDetail: string | null;
}

type Row = Record<string, unknown>;
const date = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
const dateOrNull = (v: unknown) => (v === null || v === undefined ? null : date(v));
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

const toHook = (r: Row): HookRow => ({
  workspace: String(r.workspace),
  number: Number(r.number),
  event: String(r.event),
  kind: r.kind === "workflow" ? "workflow" : "endpoint",
  urlSealed: String(r.url_sealed),
  urlMasked: String(r.url_masked),
  secretSealed: textOrNull(r.secret_sealed),
  inbox: textOrNull(r.inbox),
  createdBy: String(r.created_by),
  createdAt: date(r.created_at),
  lastAt: dateOrNull(r.last_at),
  lastState: textOrNull(r.last_state) as DeliveryState | null,
  lastDetail: textOrNull(r.last_detail),
  failures: Number(r.failures),
});

const toDelivery = (r: Row): DeliveryRow => ({
  workspace: String(r.workspace),
  hook: Number(r.hook),
  eventId: String(r.event_id),
  event: String(r.event),
  body: String(r.body),
  state: String(r.state) as DeliveryState,
  attempts: Number(r.attempts),
  firstAt: date(r.first_at),
  nextAt: date(r.next_at),
  lastAt: dateOrNull(r.last_at),
  lastDetail: textOrNull(r.last_detail),
});

export interface NewHook {
  event: string;
  kind: HookKind;
  urlMasked: string;
  inbox: string | null;
  by: string;
  now: Date;
  /** The URL and the secret sealed for the hook's number (the seal names its record). */
  seal: (number: number) => { url: string; secret: string | null };
}

/** An attempt's outcome, as kept on the delivery and on its hook. */
export interface AttemptOutcome {
  state: DeliveryState;
  detail: string;
  now: Date;
  /** Pending: when to try again. */
  nextAt?: Date;
}

/** The hooks and deliveries of one workspace. */
export class AutomationStore extends PerWorkspace<Db> {
  /** A new hook, numbered after the workspace's highest; its number. */
  async add(h: NewHook): Promise<number> {
    return this.db.transaction(async (tx) => {
      // One add at a time per workspace: the number is the next one.
      await tx.query("select pg_advisory_xact_lock(hashtext('automations.hooks:' || $1))", [this.workspace]);
      const { rows } = await tx.query<Row>(
        "select coalesce(max(number), 0) + 1 as n from automations.hooks where workspace = $1",
        [this.workspace],
      );
      const number = Number(rows[0]?.n ?? 1);
      const sealed = h.seal(number);
      await tx.query(
        `insert into automations.hooks (workspace, number, event, kind, url_sealed, url_masked, secret_sealed, inbox, created_by, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          this.workspace,
          number,
          h.event,
          h.kind,
          sealed.url,
          h.urlMasked,
          sealed.secret,
          h.inbox,
          h.by,
          h.now,
        ],
      );
      return number;
    });
  }

  async list(): Promise<HookRow[]> {
    return this.rowsOf("select * from automations.hooks where workspace = $1 order by number", toHook);
  }

  async get(number: number): Promise<HookRow | undefined> {
    return this.rowOf("select * from automations.hooks where workspace = $1 and number = $2", toHook, number);
  }

  /** Removes a hook and its deliveries; false when there was none. */
  async remove(number: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.query("delete from automations.deliveries where workspace = $1 and hook = $2", [
        this.workspace,
        number,
      ]);
      const r = await tx.query("delete from automations.hooks where workspace = $1 and number = $2", [
        this.workspace,
        number,
      ]);
      return r.rowCount === 1;
    });
  }

  async setSecret(number: number, sealed: string): Promise<boolean> {
    const r = await this.db.query(
      "update automations.hooks set secret_sealed = $3 where workspace = $1 and number = $2 and kind = 'endpoint'",
      [this.workspace, number, sealed],
    );
    return r.rowCount === 1;
  }

  /** The hooks of an event; a conversation's event (`inbox` given) only those of every inbox or of that one. */
  async hooksOf(event: string, inbox?: string): Promise<HookRow[]> {
    const { rows } = await this.db.query<Row>(
      `select * from automations.hooks where workspace = $1 and event = $2
         and (inbox is null or inbox = $3) order by number`,
      [this.workspace, event, inbox ?? null],
    );
    return rows.map(toHook);
  }

  /** A delivery of an event to a hook, pending now; false when that hook has it already (the same event id). */
  async addDelivery(hook: number, eventId: string, event: string, body: string, now: Date): Promise<boolean> {
    return this.tookOne(
      `insert into automations.deliveries (workspace, hook, event_id, event, body, first_at, next_at)
       values ($1, $2, $3, $4, $5, $6, $6) on conflict do nothing returning event_id`,
      [this.workspace, hook, eventId, event, body, now],
    );
  }

  async delivery(hook: number, eventId: string): Promise<DeliveryRow | undefined> {
    const { rows } = await this.db.query<Row>(
      "select * from automations.deliveries where workspace = $1 and hook = $2 and event_id = $3",
      [this.workspace, hook, eventId],
    );
    return rows[0] ? toDelivery(rows[0]) : undefined;
  }

  /**
   * Takes a pending delivery that is due for one attempt, until `until` (the
   * attempt's longest time): undefined when it is not pending, not due, or
   * another replica holds it.
   */
  async claim(hook: number, eventId: string, now: Date, until: Date): Promise<DeliveryRow | undefined> {
    const { rows } = await this.db.query<Row>(
      `update automations.deliveries set claimed_until = $5, attempts = attempts + 1
       where workspace = $1 and hook = $2 and event_id = $3 and state = 'pending' and next_at <= $4
         and (claimed_until is null or claimed_until < $4)
       returning *`,
      [this.workspace, hook, eventId, now, until],
    );
    return rows[0] ? toDelivery(rows[0]) : undefined;
  }

  /** An attempt's outcome on the delivery and its hook (a failure for good counted, a success clears the count). */
  async settle(hook: number, eventId: string, o: AttemptOutcome): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `update automations.deliveries set state = $4, last_at = $5, last_detail = $6, claimed_until = null,
           next_at = coalesce($7, next_at)
         where workspace = $1 and hook = $2 and event_id = $3`,
        [this.workspace, hook, eventId, o.state, o.now, o.detail, o.nextAt ?? null],
      );
      await tx.query(
        `update automations.hooks set last_at = $3, last_state = $4, last_detail = $5,
           failures = case $4 when 'delivered' then 0 when 'failed' then failures + 1 else failures end
         where workspace = $1 and number = $2`,
        [this.workspace, hook, o.now, o.state, o.detail],
      );
    });
  }

  /** A hook's failed deliveries pending again now (Retry); their event ids. */
  async retryFailed(hook: number, now: Date): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<Row>(
        `update automations.deliveries set state = 'pending', first_at = $3, next_at = $3, claimed_until = null
         where workspace = $1 and hook = $2 and state = 'failed' returning event_id`,
        [this.workspace, hook, now],
      );
      await tx.query("update automations.hooks set failures = 0 where workspace = $1 and number = $2", [
        this.workspace,
        hook,
      ]);
      return rows.map((r) => String(r.event_id));
    });
  }
}

/** Pending deliveries of every workspace due by `dueBy` and held by nobody at `now` (the queue's sweep). */
export async function pendingDeliveries(
  db: Queryable,
  now: Date,
  dueBy: Date,
  limit = 1000,
): Promise<Array<{ workspace: WorkspaceId; hook: number; eventId: string }>> {
  const { rows } = await db.query<Row>(
    `select workspace, hook, event_id from automations.deliveries
     where state = 'pending' and next_at <= $2 and (claimed_until is null or claimed_until < $1)
     order by next_at limit $3`,
    [now, dueBy, limit],
  );
  return rows.map((r) => ({
    workspace: String(r.workspace),
    hook: Number(r.hook),
    eventId: String(r.event_id),
  }));
}

/**
 * Every workspace's hooks sealed again where `reseal` gives new sealed values
 * (a rotated SWITCHBOARD_SECRET_KEY: src/automations/service.ts); how many changed.
 */
export async function resealHooks(
  db: Queryable,
  reseal: (h: HookRow) => { url: string; secret: string | null } | undefined,
): Promise<number> {
  const { rows } = await db.query<Row>("select * from automations.hooks order by workspace, number");
  let changed = 0;
  for (const h of rows.map(toHook)) {
    const next = reseal(h);
    if (!next) continue;
    await db.query(
      `update automations.hooks set url_sealed = $3, secret_sealed = $4
       where workspace = $1 and number = $2 and url_sealed = $5`,
      [h.workspace, h.number, next.url, next.secret, h.urlSealed],
    );
    changed++;
  }
  return changed;
}
