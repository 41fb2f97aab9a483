// Data access of the sandbox (schema `sandbox`). Rows come back as stored
// (snake_case columns); src/sandbox/shapes.ts turns them into API records.
// Every time written comes from the injected clock, never from SQL now(), so
// tests that move the clock see the sandbox move with it.
import type { Db, Queryable } from "../db.ts";
import { DuplicateError, isUniqueViolation } from "./errors.ts";

// ---------------------------------------------------------------- rows

export interface OrganizationRow {
  id: number;
  name: string;
  plan: Record<string, unknown>;
  created_at: Date;
}

export interface ChannelRow {
  id: number;
  type: string;
  name: string;
  phone: string | null;
  created_at: Date;
}

export interface ContactRow {
  id: number;
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  custom_fields: Record<string, unknown>;
  opted_out: boolean;
  opted_out_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ContactFieldRow {
  id: number;
  key: string;
  label: string;
  type: string;
  position: number;
  created_at: Date;
  updated_at: Date;
}

export interface GroupRow {
  id: number;
  name: string;
  description: string | null;
  member_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface TagRow {
  id: number;
  name: string;
  color: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface TemplateRow {
  id: number;
  channel_id: number;
  name: string;
  language: string;
  category: string;
  body_text: string;
  body_examples: Record<string, string> | null;
  footer_text: string | null;
  buttons: unknown[] | null;
  status: string;
  rejection_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ChatUserRow {
  id: number;
  type: string;
  channel_id: number | null;
  contact_id: number | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
  avatar: string | null;
  custom_fields: Record<string, string>;
  need_human: boolean;
  unread_count: number;
  last_login: Date | null;
  last_activity: Date | null;
  last_inbound_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ConversationRow {
  id: number;
  chat_user_id: number;
  channel_id: number;
  tag_id: number | null;
  status: string;
  created_at: Date;
  last_message_at: Date | null;
}

export interface MessageRow {
  id: number;
  conversation_id: number;
  chat_user_id: number;
  channel_id: number;
  direction: "inbound" | "outbound";
  type: string;
  text: string | null;
  template: Record<string, unknown> | null;
  media_url: string | null;
  metadata: Record<string, unknown> | null;
  status: string;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CampaignStats {
  total: number;
  pending: number;
  sending: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  skipped: number;
}

export interface CampaignRow {
  id: number;
  name: string;
  integration_id: number;
  template_id: number;
  conversation_tag_id: number | null;
  group_ids: number[];
  contact_ids: number[];
  template_parameters: Record<string, string> | null;
  scheduled_at: Date | null;
  status: string;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  stats: CampaignStats;
}

export interface RecipientRow {
  id: number;
  campaign_id: number;
  contact_id: number;
  phone: string;
  first_name: string | null;
  last_name: string | null;
  status: string;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  read_at: Date | null;
}

export interface PageQuery {
  page: number;
  limit: number;
}

export interface Paged<T> {
  rows: T[];
  total: number;
}

/** A contact as read from an import file: undefined members leave the stored value alone. */
export interface ImportContact {
  phone: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  custom_fields?: Record<string, unknown>;
}

// ---------------------------------------------------------------- deterministic outcomes

/**
 * The sandbox's one rule for delivery failures: a phone number ending in 9 is
 * "not on the messaging network". It drives wa_identified on contacts, failed
 * messages and failed campaign recipients alike (docs/sandbox.md).
 */
export const UNREACHABLE_PHONE_SQL = (column: string) => `right(${column}, 1) = '9'`;
export const isUnreachablePhone = (phone: string) => phone.endsWith("9");
export const UNREACHABLE_ERROR = "the phone number is not on the messaging network";

/** Read receipts: one delivered message or recipient in four is never read. */
const READ_RULE_SQL = (idColumn: string) => `${idColumn} % 4 <> 0`;

const CONTACT_COLS =
  "id, phone, first_name, last_name, email, custom_fields, opted_out, opted_out_at, created_at, updated_at";
const TEMPLATE_COLS =
  "id, channel_id, name, language, category, body_text, body_examples, footer_text, buttons, status, rejection_reason, created_at, updated_at";
const CAMPAIGN_COLS =
  "id, name, integration_id, template_id, conversation_tag_id, group_ids, contact_ids, template_parameters, scheduled_at, status, created_at, updated_at, started_at, completed_at, cancelled_at";

/** Escapes LIKE wildcards so a search for `50%` means the text `50%`. */
const likeTerm = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const offsetOf = (p: PageQuery) => (p.page - 1) * p.limit;

async function guardUnique<T>(field: string, message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateError(field, message);
    throw err;
  }
}

/** Builds `where` clauses with numbered parameters. */
class Where {
  readonly parts: string[] = [];
  constructor(readonly params: unknown[] = []) {}
  add(sqlWithQ: string, ...values: unknown[]): this {
    let sql = sqlWithQ;
    for (const v of values) {
      this.params.push(v);
      sql = sql.replace("?", `$${this.params.length}`);
    }
    this.parts.push(sql);
    return this;
  }
  param(v: unknown): string {
    this.params.push(v);
    return `$${this.params.length}`;
  }
  get sql(): string {
    return this.parts.length ? `where ${this.parts.join(" and ")}` : "";
  }
}

export class SandboxStore {
  constructor(
    readonly db: Db,
    private readonly clock: () => Date,
  ) {}

  private now(): Date {
    return this.clock();
  }

  private async one<T>(sql: string, params: unknown[] = [], q: Queryable = this.db): Promise<T | undefined> {
    return (await q.query<T>(sql, params)).rows[0];
  }

  private async count(sql: string, params: unknown[]): Promise<number> {
    const row = await this.one<{ n: number }>(sql, params);
    return Number(row?.n ?? 0);
  }

  // -------------------------------------------------------------- organization and channels

  async isEmpty(): Promise<boolean> {
    return (await this.count("select count(*)::int as n from sandbox.organizations", [])) === 0;
  }

  async organization(): Promise<OrganizationRow | undefined> {
    return this.one<OrganizationRow>("select * from sandbox.organizations order by id limit 1");
  }

  async channels(): Promise<ChannelRow[]> {
    return (await this.db.query<ChannelRow>("select * from sandbox.channels order by id")).rows;
  }

  async channel(id: number): Promise<ChannelRow | undefined> {
    return this.one<ChannelRow>("select * from sandbox.channels where id = $1", [id]);
  }

  // -------------------------------------------------------------- contacts

  async listContacts(
    q: PageQuery & { search?: string; groupId?: number; optedOut?: boolean },
  ): Promise<Paged<ContactRow>> {
    const w = new Where().add("c.deleted_at is null");
    if (q.search) {
      let term = q.search.toLowerCase();
      // A phone typed with spaces or dashes still finds the stored E.164 number.
      if (/^[\d\s()+\-.]+$/.test(term) && /\d/.test(term)) term = term.replace(/[^\d+]/g, "");
      w.add("c.search_text like ?", likeTerm(term));
    }
    if (q.optedOut !== undefined) w.add("c.opted_out = ?", q.optedOut);
    if (q.groupId !== undefined) {
      w.add(
        "exists (select 1 from sandbox.group_members m where m.contact_id = c.id and m.group_id = ?)",
        q.groupId,
      );
    }
    const total = await this.count(`select count(*)::int as n from sandbox.contacts c ${w.sql}`, w.params);
    const params = [...w.params, q.limit, offsetOf(q)];
    const rows = (
      await this.db.query<ContactRow>(
        `select ${CONTACT_COLS} from sandbox.contacts c ${w.sql} order by c.id desc limit $${params.length - 1} offset $${params.length}`,
        params,
      )
    ).rows;
    return { rows, total };
  }

  async getContact(id: number): Promise<ContactRow | undefined> {
    return this.one(`select ${CONTACT_COLS} from sandbox.contacts where id = $1 and deleted_at is null`, [
      id,
    ]);
  }

  async contactByPhone(phone: string): Promise<ContactRow | undefined> {
    return this.one(`select ${CONTACT_COLS} from sandbox.contacts where phone = $1 and deleted_at is null`, [
      phone,
    ]);
  }

  /** Ids among `ids` that do not name a live contact. */
  async missingContacts(ids: number[]): Promise<number[]> {
    const found = await this.db.query<{ id: number }>(
      "select id from sandbox.contacts where id = any($1::int[]) and deleted_at is null",
      [ids],
    );
    const have = new Set(found.rows.map((r) => r.id));
    return ids.filter((id) => !have.has(id));
  }

  async createContact(c: {
    phone: string;
    first_name?: string;
    last_name?: string;
    email?: string;
    custom_fields?: Record<string, unknown>;
  }): Promise<ContactRow> {
    const now = this.now();
    return guardUnique("phone", "a contact with this phone number already exists", async () => {
      const row = await this.one<ContactRow>(
        `insert into sandbox.contacts (phone, first_name, last_name, email, custom_fields, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $6) returning ${CONTACT_COLS}`,
        [
          c.phone,
          c.first_name ?? null,
          c.last_name ?? null,
          c.email ?? null,
          JSON.stringify(c.custom_fields ?? {}),
          now,
        ],
      );
      return row!;
    });
  }

  async updateContact(
    id: number,
    c: {
      phone?: string;
      first_name?: string;
      last_name?: string;
      email?: string;
      custom_fields?: Record<string, unknown>;
    },
  ): Promise<ContactRow | undefined> {
    const sets: string[] = [];
    const params: unknown[] = [id, this.now()];
    for (const key of ["phone", "first_name", "last_name", "email"] as const) {
      if (c[key] !== undefined) {
        params.push(c[key]);
        sets.push(`${key} = $${params.length}`);
      }
    }
    if (c.custom_fields !== undefined) {
      params.push(JSON.stringify(c.custom_fields));
      sets.push(`custom_fields = $${params.length}`);
    }
    return guardUnique("phone", "a contact with this phone number already exists", () =>
      this.one<ContactRow>(
        `update sandbox.contacts set ${[...sets, "updated_at = $2"].join(", ")}
         where id = $1 and deleted_at is null returning ${CONTACT_COLS}`,
        params,
      ),
    );
  }

  async deleteContact(id: number): Promise<boolean> {
    const r = await this.db.query(
      "update sandbox.contacts set deleted_at = $2 where id = $1 and deleted_at is null",
      [id, this.now()],
    );
    return r.rowCount > 0;
  }

  async setOptedOut(id: number, optedOut: boolean): Promise<ContactRow | undefined> {
    const now = this.now();
    return this.one<ContactRow>(
      `update sandbox.contacts set opted_out = $2,
         opted_out_at = case when $2 then coalesce(case when opted_out then opted_out_at end, $3) else null end,
         updated_at = $3
       where id = $1 and deleted_at is null returning ${CONTACT_COLS}`,
      [id, optedOut, now],
    );
  }

  /**
   * Writes one batch of imported contacts in one statement. `updateExisting`
   * false leaves a contact whose phone exists untouched; true overwrites the
   * members the file gives and merges custom fields. Returns how many were
   * created and updated. The caller dedupes phones within a batch.
   */
  async importContacts(
    tx: Queryable,
    batch: ImportContact[],
    opts: { updateExisting: boolean; groupId?: number },
  ): Promise<{ created: number; updated: number }> {
    if (batch.length === 0) return { created: 0, updated: 0 };
    const now = this.now();
    const json = JSON.stringify(batch);
    const source = `select x.phone, x.first_name, x.last_name, x.email, coalesce(x.custom_fields, '{}'::jsonb) as custom_fields, $2::timestamptz as created_at, $2::timestamptz as updated_at
      from jsonb_to_recordset($1::jsonb) as x(phone text, first_name text, last_name text, email text, custom_fields jsonb)`;
    const conflict = opts.updateExisting
      ? `do update set first_name = coalesce(excluded.first_name, contacts.first_name),
           last_name = coalesce(excluded.last_name, contacts.last_name),
           email = coalesce(excluded.email, contacts.email),
           custom_fields = contacts.custom_fields || excluded.custom_fields,
           updated_at = excluded.updated_at`
      : "do nothing";
    const r = await tx.query<{ inserted: boolean }>(
      `insert into sandbox.contacts (phone, first_name, last_name, email, custom_fields, created_at, updated_at)
       ${source}
       on conflict (phone) where deleted_at is null ${conflict}
       returning (xmax = 0) as inserted`,
      [json, now],
    );
    const created = r.rows.filter((row) => row.inserted).length;
    if (opts.groupId !== undefined) {
      await tx.query(
        `insert into sandbox.group_members (group_id, contact_id, added_at)
         select $1, c.id, $3 from sandbox.contacts c
         where c.deleted_at is null and c.phone in (select jsonb_array_elements_text($2::jsonb))
         on conflict do nothing`,
        [opts.groupId, JSON.stringify(batch.map((b) => b.phone)), now],
      );
    }
    return { created, updated: r.rows.length - created };
  }

  /** Refreshes the planner's statistics after a bulk write (PGlite has no autovacuum to do it). */
  async analyzeContacts(): Promise<void> {
    await this.db.query("analyze sandbox.contacts");
  }

  // -------------------------------------------------------------- contact fields

  async listFields(): Promise<ContactFieldRow[]> {
    return (
      await this.db.query<ContactFieldRow>(
        "select id, key, label, type, position, created_at, updated_at from sandbox.contact_fields where deleted_at is null order by position, id",
      )
    ).rows;
  }

  async getField(id: number): Promise<ContactFieldRow | undefined> {
    return this.one(
      "select id, key, label, type, position, created_at, updated_at from sandbox.contact_fields where id = $1 and deleted_at is null",
      [id],
    );
  }

  async createField(f: {
    key: string;
    label: string;
    type: string;
    position: number;
  }): Promise<ContactFieldRow> {
    return guardUnique("key", "a contact field with this key already exists", async () => {
      const row = await this.one<ContactFieldRow>(
        `insert into sandbox.contact_fields (key, label, type, position, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $5) returning id, key, label, type, position, created_at, updated_at`,
        [f.key, f.label, f.type, f.position, this.now()],
      );
      return row!;
    });
  }

  async updateField(
    id: number,
    f: { label?: string; type?: string; position?: number },
  ): Promise<ContactFieldRow | undefined> {
    return this.one(
      `update sandbox.contact_fields set label = coalesce($2, label), type = coalesce($3, type),
         position = coalesce($4, position), updated_at = $5
       where id = $1 and deleted_at is null returning id, key, label, type, position, created_at, updated_at`,
      [id, f.label ?? null, f.type ?? null, f.position ?? null, this.now()],
    );
  }

  async deleteField(id: number): Promise<boolean> {
    const r = await this.db.query(
      "update sandbox.contact_fields set deleted_at = $2 where id = $1 and deleted_at is null",
      [id, this.now()],
    );
    return r.rowCount > 0;
  }

  // -------------------------------------------------------------- groups

  private groupSelect(where: string): string {
    return `select g.id, g.name, g.description, g.created_at, g.updated_at,
      (select count(*) from sandbox.group_members m join sandbox.contacts c on c.id = m.contact_id and c.deleted_at is null
        where m.group_id = g.id)::int as member_count
      from sandbox.groups g where g.deleted_at is null ${where}`;
  }

  async listGroups(): Promise<GroupRow[]> {
    return (await this.db.query<GroupRow>(`${this.groupSelect("")} order by g.name, g.id`)).rows;
  }

  async getGroup(id: number): Promise<GroupRow | undefined> {
    return this.one(this.groupSelect("and g.id = $1"), [id]);
  }

  /** Ids among `ids` that do not name a live group. */
  async missingGroups(ids: number[]): Promise<number[]> {
    const found = await this.db.query<{ id: number }>(
      "select id from sandbox.groups where id = any($1::int[]) and deleted_at is null",
      [ids],
    );
    const have = new Set(found.rows.map((r) => r.id));
    return ids.filter((id) => !have.has(id));
  }

  async createGroup(g: { name: string; description?: string }): Promise<GroupRow> {
    const r = await this.one<{ id: number }>(
      "insert into sandbox.groups (name, description, created_at, updated_at) values ($1, $2, $3, $3) returning id",
      [g.name, g.description ?? null, this.now()],
    );
    return (await this.getGroup(r!.id))!;
  }

  async updateGroup(id: number, g: { name?: string; description?: string }): Promise<GroupRow | undefined> {
    const r = await this.db.query(
      `update sandbox.groups set name = coalesce($2, name), description = coalesce($3, description), updated_at = $4
       where id = $1 and deleted_at is null`,
      [id, g.name ?? null, g.description ?? null, this.now()],
    );
    return r.rowCount > 0 ? this.getGroup(id) : undefined;
  }

  async deleteGroup(id: number): Promise<boolean> {
    const r = await this.db.query(
      "update sandbox.groups set deleted_at = $2 where id = $1 and deleted_at is null",
      [id, this.now()],
    );
    return r.rowCount > 0;
  }

  async addGroupMembers(groupId: number, contactIds: number[]): Promise<number> {
    const r = await this.db.query(
      `insert into sandbox.group_members (group_id, contact_id, added_at)
       select $1, unnest($2::int[]), $3 on conflict do nothing`,
      [groupId, contactIds, this.now()],
    );
    return r.rowCount;
  }

  async removeGroupMembers(groupId: number, contactIds: number[]): Promise<number> {
    const r = await this.db.query(
      "delete from sandbox.group_members where group_id = $1 and contact_id = any($2::int[])",
      [groupId, contactIds],
    );
    return r.rowCount;
  }

  // -------------------------------------------------------------- tags

  async listTags(): Promise<TagRow[]> {
    return (
      await this.db.query<TagRow>(
        "select id, name, color, description, created_at, updated_at from sandbox.tags where deleted_at is null order by lower(name), id",
      )
    ).rows;
  }

  async getTag(id: number): Promise<TagRow | undefined> {
    return this.one(
      "select id, name, color, description, created_at, updated_at from sandbox.tags where id = $1 and deleted_at is null",
      [id],
    );
  }

  async createTag(t: { name: string; color: string; description?: string }): Promise<TagRow> {
    return guardUnique("name", "a tag with this name already exists", async () => {
      const row = await this.one<TagRow>(
        `insert into sandbox.tags (name, color, description, created_at, updated_at) values ($1, $2, $3, $4, $4)
         returning id, name, color, description, created_at, updated_at`,
        [t.name, t.color, t.description ?? null, this.now()],
      );
      return row!;
    });
  }

  async updateTag(
    id: number,
    t: { name?: string; color?: string; description?: string },
  ): Promise<TagRow | undefined> {
    return guardUnique("name", "a tag with this name already exists", () =>
      this.one<TagRow>(
        `update sandbox.tags set name = coalesce($2, name), color = coalesce($3, color),
           description = coalesce($4, description), updated_at = $5
         where id = $1 and deleted_at is null returning id, name, color, description, created_at, updated_at`,
        [id, t.name ?? null, t.color ?? null, t.description ?? null, this.now()],
      ),
    );
  }

  async deleteTag(id: number): Promise<boolean> {
    const r = await this.db.query(
      "update sandbox.tags set deleted_at = $2 where id = $1 and deleted_at is null",
      [id, this.now()],
    );
    return r.rowCount > 0;
  }

  // -------------------------------------------------------------- templates

  async listTemplates(q: { channelId?: number; status?: string }): Promise<TemplateRow[]> {
    const w = new Where().add("deleted_at is null");
    if (q.channelId !== undefined) w.add("channel_id = ?", q.channelId);
    if (q.status !== undefined) w.add("status = ?", q.status);
    return (
      await this.db.query<TemplateRow>(
        `select ${TEMPLATE_COLS} from sandbox.templates ${w.sql} order by id`,
        w.params,
      )
    ).rows;
  }

  async getTemplate(id: number): Promise<TemplateRow | undefined> {
    return this.one(`select ${TEMPLATE_COLS} from sandbox.templates where id = $1 and deleted_at is null`, [
      id,
    ]);
  }

  async findTemplate(channelId: number, name: string, language: string): Promise<TemplateRow | undefined> {
    return this.one(
      `select ${TEMPLATE_COLS} from sandbox.templates
       where channel_id = $1 and name = $2 and language = $3 and deleted_at is null`,
      [channelId, name, language],
    );
  }

  async createTemplate(t: {
    channelId: number;
    name: string;
    language: string;
    category: string;
    bodyText: string;
    bodyExamples?: Record<string, string>;
    footerText?: string;
    buttons?: unknown[];
    approveAt: Date;
  }): Promise<TemplateRow> {
    return guardUnique(
      "name",
      "a template with this name and language already exists on this channel",
      async () => {
        const row = await this.one<TemplateRow>(
          `insert into sandbox.templates (channel_id, name, language, category, body_text, body_examples, footer_text, buttons,
           status, approve_at, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $10) returning ${TEMPLATE_COLS}`,
          [
            t.channelId,
            t.name,
            t.language,
            t.category,
            t.bodyText,
            t.bodyExamples ? JSON.stringify(t.bodyExamples) : null,
            t.footerText ?? null,
            t.buttons ? JSON.stringify(t.buttons) : null,
            t.approveAt,
            this.now(),
          ],
        );
        return row!;
      },
    );
  }

  async deleteTemplate(id: number): Promise<boolean> {
    const r = await this.db.query(
      "update sandbox.templates set deleted_at = $2 where id = $1 and deleted_at is null",
      [id, this.now()],
    );
    return r.rowCount > 0;
  }

  /**
   * The provider's review: a pending template whose name contains `reject` is
   * rejected, every other one approved. `channelId` set: that channel's
   * pending templates now (sync); unset: those whose review delay is over.
   */
  async reviewTemplates(channelId?: number): Promise<{ approved: number; rejected: number }> {
    const now = this.now();
    const r = await this.db.query<{ status: string }>(
      `update sandbox.templates set
         status = case when name like '%reject%' then 'rejected' else 'approved' end,
         rejection_reason = case when name like '%reject%' then 'The template was rejected by the provider review (sandbox rule: names containing "reject")' end,
         updated_at = $1
       where status = 'pending' and deleted_at is null
         and (($2::int is null and approve_at <= $1) or channel_id = $2::int)
       returning status`,
      [now, channelId ?? null],
    );
    const rejected = r.rows.filter((row) => row.status === "rejected").length;
    return { approved: r.rows.length - rejected, rejected };
  }

  async countTemplates(channelId: number): Promise<number> {
    return this.count(
      "select count(*)::int as n from sandbox.templates where channel_id = $1 and deleted_at is null",
      [channelId],
    );
  }

  // -------------------------------------------------------------- chat users, conversations, messages

  async listChatUsers(
    q: PageQuery & {
      search?: string;
      type?: string;
      sortBy?: string;
      sortOrder?: "ASC" | "DESC";
      needHuman?: boolean;
      hasUnreadMessages?: boolean;
      dateFrom?: Date;
      dateTo?: Date;
    },
  ): Promise<Paged<ChatUserRow>> {
    const w = new Where();
    if (q.search) {
      const p = w.param(likeTerm(q.search.toLowerCase()));
      w.parts.push(
        `(lower(coalesce(u.name, '')) like ${p} or lower(coalesce(u.email, '')) like ${p} or coalesce(u.phone, '') like ${p})`,
      );
    }
    if (q.type) w.add("u.type = ?", q.type);
    if (q.needHuman !== undefined) w.add("u.need_human = ?", q.needHuman);
    if (q.hasUnreadMessages !== undefined)
      w.add(q.hasUnreadMessages ? "u.unread_count > 0" : "u.unread_count = 0");
    if (q.dateFrom) w.add("u.last_activity >= ?", q.dateFrom);
    if (q.dateTo) w.add("u.last_activity < ?", q.dateTo);
    const total = await this.count(`select count(*)::int as n from sandbox.chat_users u ${w.sql}`, w.params);
    const column = CHAT_USER_SORT_COLUMNS[q.sortBy ?? "last_activity"] ?? "u.last_activity";
    const order = q.sortOrder ?? "DESC";
    const params = [...w.params, q.limit, offsetOf(q)];
    const rows = (
      await this.db.query<ChatUserRow>(
        `select u.* from sandbox.chat_users u ${w.sql}
         order by ${column} ${order} nulls last, u.id ${order}
         limit $${params.length - 1} offset $${params.length}`,
        params,
      )
    ).rows;
    return { rows, total };
  }

  async getChatUser(id: number): Promise<ChatUserRow | undefined> {
    return this.one("select * from sandbox.chat_users where id = $1", [id]);
  }

  async chatUserByPhone(phone: string): Promise<ChatUserRow | undefined> {
    return this.one(
      "select * from sandbox.chat_users where phone = $1 order by (type = 'phonechat') desc, id limit 1",
      [phone],
    );
  }

  async chatUserByContact(contactId: number, phone: string): Promise<ChatUserRow | undefined> {
    return this.one(
      `select * from sandbox.chat_users where contact_id = $1 or phone = $2
       order by (contact_id = $1) desc nulls last, (type = 'phonechat') desc, id limit 1`,
      [contactId, phone],
    );
  }

  async createChatUser(u: {
    type: string;
    channelId: number;
    contactId?: number;
    name?: string;
    phone?: string;
    email?: string;
  }): Promise<ChatUserRow> {
    const row = await this.one<ChatUserRow>(
      `insert into sandbox.chat_users (type, channel_id, contact_id, name, phone, email, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7) returning *`,
      [
        u.type,
        u.channelId,
        u.contactId ?? null,
        u.name ?? null,
        u.phone ?? null,
        u.email ?? null,
        this.now(),
      ],
    );
    return row!;
  }

  async updateChatUser(
    id: number,
    standard: Partial<Record<"name" | "email" | "phone" | "address" | "avatar", string>>,
    customFields: Record<string, string> | undefined,
  ): Promise<ChatUserRow | undefined> {
    const params: unknown[] = [id, this.now()];
    const sets = ["updated_at = $2"];
    for (const key of ["name", "email", "phone", "address", "avatar"] as const) {
      if (standard[key] !== undefined) {
        params.push(standard[key]);
        sets.push(`${key} = $${params.length}`);
      }
    }
    if (customFields) {
      params.push(JSON.stringify(customFields));
      sets.push(`custom_fields = custom_fields || $${params.length}::jsonb`);
    }
    return this.one(`update sandbox.chat_users set ${sets.join(", ")} where id = $1 returning *`, params);
  }

  async conversationsOf(chatUserIds: number[]): Promise<ConversationRow[]> {
    return (
      await this.db.query<ConversationRow>(
        "select * from sandbox.conversations where chat_user_id = any($1::int[]) order by last_message_at desc nulls last, id desc",
        [chatUserIds],
      )
    ).rows;
  }

  /** The latest `perUser` messages of each chat user, newest first, in one query. */
  async latestMessagesOf(chatUserIds: number[], perUser: number): Promise<MessageRow[]> {
    return (
      await this.db.query<MessageRow>(
        `select m.* from unnest($1::int[]) as u(id)
         cross join lateral (
           select * from sandbox.messages where chat_user_id = u.id order by created_at desc, id desc limit $2
         ) m`,
        [chatUserIds, perUser],
      )
    ).rows;
  }

  async getConversation(id: number): Promise<ConversationRow | undefined> {
    return this.one("select * from sandbox.conversations where id = $1", [id]);
  }

  async openConversation(chatUserId: number, channelId: number): Promise<ConversationRow> {
    const found = await this.one<ConversationRow>(
      `select * from sandbox.conversations where chat_user_id = $1 and channel_id = $2 and status = 'open'
       order by id desc limit 1`,
      [chatUserId, channelId],
    );
    if (found) return found;
    const row = await this.one<ConversationRow>(
      `insert into sandbox.conversations (chat_user_id, channel_id, status, created_at) values ($1, $2, 'open', $3)
       returning *`,
      [chatUserId, channelId, this.now()],
    );
    return row!;
  }

  async conversationMessages(
    conversationId: number,
    q: PageQuery & { before?: Date; after?: Date },
  ): Promise<Paged<MessageRow>> {
    const w = new Where().add("conversation_id = ?", conversationId);
    if (q.before) w.add("created_at < ?", q.before);
    if (q.after) w.add("created_at > ?", q.after);
    const total = await this.count(`select count(*)::int as n from sandbox.messages ${w.sql}`, w.params);
    const params = [...w.params, q.limit, offsetOf(q)];
    const rows = (
      await this.db.query<MessageRow>(
        `select * from sandbox.messages ${w.sql} order by created_at desc, id desc
         limit $${params.length - 1} offset $${params.length}`,
        params,
      )
    ).rows;
    return { rows, total };
  }

  async getMessage(id: number): Promise<MessageRow | undefined> {
    return this.one("select * from sandbox.messages where id = $1", [id]);
  }

  /** Stores a message the chat user sent: it opens the 24-hour window and counts as unread. */
  async recordInbound(m: {
    conversationId: number;
    chatUserId: number;
    channelId: number;
    text: string;
  }): Promise<MessageRow> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const row = await this.one<MessageRow>(
        `insert into sandbox.messages (conversation_id, chat_user_id, channel_id, direction, type, text, status, created_at, updated_at)
         values ($1, $2, $3, 'inbound', 'text', $4, 'received', $5, $5) returning *`,
        [m.conversationId, m.chatUserId, m.channelId, m.text, now],
        tx,
      );
      await tx.query("update sandbox.conversations set last_message_at = $2 where id = $1", [
        m.conversationId,
        now,
      ]);
      await tx.query(
        `update sandbox.chat_users set last_activity = $2, last_inbound_at = $2, unread_count = unread_count + 1,
           updated_at = $2 where id = $1`,
        [m.chatUserId, now],
      );
      return row!;
    });
  }

  /** Stores an outbound message and moves its conversation and chat user forward, in one transaction. */
  async recordOutbound(m: {
    conversationId: number;
    chatUserId: number;
    channelId: number;
    type: string;
    text?: string;
    template?: Record<string, unknown>;
    mediaUrl?: string;
    metadata?: Record<string, unknown>;
    assignToHuman?: boolean;
  }): Promise<MessageRow> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const row = await this.one<MessageRow>(
        `insert into sandbox.messages (conversation_id, chat_user_id, channel_id, direction, type, text, template, media_url,
           metadata, status, created_at, updated_at)
         values ($1, $2, $3, 'outbound', $4, $5, $6, $7, $8, 'queued', $9, $9) returning *`,
        [
          m.conversationId,
          m.chatUserId,
          m.channelId,
          m.type,
          m.text ?? null,
          m.template ? JSON.stringify(m.template) : null,
          m.mediaUrl ?? null,
          m.metadata ? JSON.stringify(m.metadata) : null,
          now,
        ],
        tx,
      );
      await tx.query("update sandbox.conversations set last_message_at = $2 where id = $1", [
        m.conversationId,
        now,
      ]);
      await tx.query(
        `update sandbox.chat_users set last_activity = $2, updated_at = $2,
           need_human = need_human or $3 where id = $1`,
        [m.chatUserId, now, m.assignToHuman === true],
      );
      return row!;
    });
  }

  // -------------------------------------------------------------- campaigns

  private async withStats(rows: Omit<CampaignRow, "stats">[]): Promise<CampaignRow[]> {
    if (rows.length === 0) return [];
    const stats = await this.db.query<CampaignStats & { campaign_id: number }>(
      `select campaign_id, count(*)::int as total,
         count(*) filter (where status = 'pending')::int as pending,
         count(*) filter (where status = 'sending')::int as sending,
         count(*) filter (where status = 'sent')::int as sent,
         count(*) filter (where status = 'delivered')::int as delivered,
         count(*) filter (where status = 'read')::int as read,
         count(*) filter (where status = 'failed')::int as failed,
         count(*) filter (where status = 'skipped')::int as skipped
       from sandbox.campaign_recipients where campaign_id = any($1::int[]) group by campaign_id`,
      [rows.map((r) => r.id)],
    );
    const byId = new Map(stats.rows.map(({ campaign_id, ...s }) => [campaign_id, s]));
    const empty: CampaignStats = {
      total: 0,
      pending: 0,
      sending: 0,
      sent: 0,
      delivered: 0,
      read: 0,
      failed: 0,
      skipped: 0,
    };
    return rows.map((r) => ({ ...r, stats: byId.get(r.id) ?? empty }));
  }

  async listCampaigns(q: PageQuery & { status?: string }): Promise<Paged<CampaignRow>> {
    const w = new Where();
    if (q.status) w.add("status = ?", q.status);
    const total = await this.count(`select count(*)::int as n from sandbox.campaigns ${w.sql}`, w.params);
    const params = [...w.params, q.limit, offsetOf(q)];
    const rows = await this.db.query<Omit<CampaignRow, "stats">>(
      `select ${CAMPAIGN_COLS} from sandbox.campaigns ${w.sql} order by id desc
       limit $${params.length - 1} offset $${params.length}`,
      params,
    );
    return { rows: await this.withStats(rows.rows), total };
  }

  async getCampaign(id: number): Promise<CampaignRow | undefined> {
    const row = await this.one<Omit<CampaignRow, "stats">>(
      `select ${CAMPAIGN_COLS} from sandbox.campaigns where id = $1`,
      [id],
    );
    return row ? (await this.withStats([row]))[0] : undefined;
  }

  async createCampaign(c: {
    name: string;
    integrationId: number;
    templateId: number;
    conversationTagId?: number;
    groupIds: number[];
    contactIds: number[];
    templateParameters?: Record<string, string>;
    scheduledAt?: Date;
  }): Promise<CampaignRow> {
    const r = await this.one<{ id: number }>(
      `insert into sandbox.campaigns (name, integration_id, template_id, conversation_tag_id, group_ids, contact_ids,
         template_parameters, scheduled_at, status, created_at, updated_at)
       values ($1, $2, $3, $4, $5::int[], $6::int[], $7, $8, $9, $10, $10) returning id`,
      [
        c.name,
        c.integrationId,
        c.templateId,
        c.conversationTagId ?? null,
        c.groupIds,
        c.contactIds,
        c.templateParameters ? JSON.stringify(c.templateParameters) : null,
        c.scheduledAt ?? null,
        c.scheduledAt ? "scheduled" : "draft",
        this.now(),
      ],
    );
    return (await this.getCampaign(r!.id))!;
  }

  /**
   * Moves a campaign to `running` when its status is one of `from`, building
   * its recipients from the audience in one statement: live contacts of its
   * groups and its contacts, opted-out ones `skipped`. Returns false when the
   * status did not allow it.
   */
  async startCampaign(id: number, from: readonly string[]): Promise<boolean> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const c = await this.one<{ group_ids: number[]; contact_ids: number[] }>(
        `update sandbox.campaigns set status = 'running', started_at = $2, updated_at = $2
         where id = $1 and status = any($3::text[]) returning group_ids, contact_ids`,
        [id, now, from],
        tx,
      );
      if (!c) return false;
      await tx.query(
        `insert into sandbox.campaign_recipients (campaign_id, contact_id, phone, status, error, created_at, updated_at)
         select $1, c.id, c.phone,
           case when c.opted_out then 'skipped' else 'pending' end,
           case when c.opted_out then 'the contact has opted out' end,
           $2, $2
         from sandbox.contacts c
         where c.deleted_at is null
           and (c.id = any($3::int[]) or exists (
             select 1 from sandbox.group_members m join sandbox.groups g on g.id = m.group_id and g.deleted_at is null
             where m.contact_id = c.id and m.group_id = any($4::int[])))
         order by c.id`,
        [id, now, c.contact_ids, c.group_ids],
      );
      return true;
    });
  }

  /** Cancels when the status is one of `from`; pending recipients become skipped. */
  async cancelCampaign(id: number, from: readonly string[]): Promise<boolean> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const r = await tx.query(
        `update sandbox.campaigns set status = 'cancelled', cancelled_at = $2, updated_at = $2
         where id = $1 and status = any($3::text[])`,
        [id, now, from],
      );
      if (r.rowCount === 0) return false;
      await tx.query(
        `update sandbox.campaign_recipients set status = 'skipped', error = 'the campaign was cancelled', updated_at = $2
         where campaign_id = $1 and status = 'pending'`,
        [id, now],
      );
      return true;
    });
  }

  async listRecipients(campaignId: number, q: PageQuery & { status?: string }): Promise<Paged<RecipientRow>> {
    const w = new Where().add("r.campaign_id = ?", campaignId);
    if (q.status) w.add("r.status = ?", q.status);
    const total = await this.count(
      `select count(*)::int as n from sandbox.campaign_recipients r ${w.sql}`,
      w.params,
    );
    const params = [...w.params, q.limit, offsetOf(q)];
    const rows = (
      await this.db.query<RecipientRow>(
        `select r.id, r.campaign_id, r.contact_id, r.phone, c.first_name, c.last_name, r.status, r.error,
           r.created_at, r.updated_at, r.sent_at, r.delivered_at, r.read_at
         from sandbox.campaign_recipients r join sandbox.contacts c on c.id = r.contact_id
         ${w.sql} order by r.id limit $${params.length - 1} offset $${params.length}`,
        params,
      )
    ).rows;
    return { rows, total };
  }

  // -------------------------------------------------------------- the clock's work

  /**
   * Sends the next `batch` pending recipients of a running campaign, as
   * POST /messages would send each one a template, in three set-based
   * statements: phonechat chat users for recipients without one, an open
   * conversation on the campaign's channel for chat users without one, then
   * recipients `sending` with one `queued` template message each in that
   * conversation, which takes the campaign's tag (docs/sandbox.md).
   */
  private async sendBatch(campaignId: number, batch: number, now: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      const k = await this.one<{
        integration_id: number;
        conversation_tag_id: number | null;
        template_parameters: Record<string, string> | null;
        template_id: number;
        name: string;
        language: string;
        body_text: string;
      }>(
        `select c.integration_id, c.conversation_tag_id, c.template_parameters, t.id as template_id, t.name, t.language, t.body_text
         from sandbox.campaigns c join sandbox.templates t on t.id = c.template_id where c.id = $1`,
        [campaignId],
        tx,
      );
      if (!k) return;
      await tx.query(
        `insert into sandbox.chat_users (type, channel_id, contact_id, name, phone, email, created_at, updated_at)
         select 'phonechat', $3::int, n.contact_id, nullif(concat_ws(' ', c.first_name, c.last_name), ''), n.phone, c.email,
           $4::timestamptz, $4::timestamptz
         from (${NEXT_BATCH_SQL}) n join sandbox.contacts c on c.id = n.contact_id
         where not exists (select 1 from sandbox.chat_users u where u.contact_id = n.contact_id or u.phone = n.phone)`,
        [campaignId, batch, k.integration_id, now],
      );
      await tx.query(
        `insert into sandbox.conversations (chat_user_id, channel_id, tag_id, status, created_at)
         select distinct u.id, $3::int, $4::int, 'open', $5::timestamptz from (${NEXT_BATCH_SQL}) n ${RECIPIENT_CHAT_USER_SQL}
         where not exists (select 1 from sandbox.conversations v
                           where v.chat_user_id = u.id and v.channel_id = $3 and v.status = 'open')`,
        [campaignId, batch, k.integration_id, k.conversation_tag_id, now],
      );
      // Parameters are the campaign's, so every recipient gets the same body.
      const params = k.template_parameters ?? {};
      const text = k.body_text.replace(
        /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g,
        (_m, name: string) => params[name] ?? "",
      );
      const template = { id: k.template_id, name: k.name, language: k.language, parameters: params };
      await tx.query(
        `with n as (update sandbox.campaign_recipients set status = 'sending', updated_at = $5::timestamptz
                    where id in (select id from (${NEXT_BATCH_SQL}) b) returning id, contact_id, phone),
         sent as (
           insert into sandbox.messages (conversation_id, chat_user_id, channel_id, direction, type, text, template, metadata,
             status, created_at, updated_at, campaign_recipient_id)
           select v.id, u.id, $3::int, 'outbound', 'template', $6::text, $7::jsonb, jsonb_build_object('campaignId', $1::int),
             'queued', $5::timestamptz, $5::timestamptz, n.id
           from n ${RECIPIENT_CHAT_USER_SQL}
           cross join lateral (select id from sandbox.conversations
                               where chat_user_id = u.id and channel_id = $3 and status = 'open' order by id desc limit 1) v
           returning conversation_id, chat_user_id),
         stamped as (
           update sandbox.conversations set last_message_at = $5, tag_id = coalesce($4::int, tag_id)
           where id in (select conversation_id from sent))
         update sandbox.chat_users set last_activity = $5, updated_at = $5 where id in (select chat_user_id from sent)`,
        [campaignId, batch, k.integration_id, k.conversation_tag_id, now, text, JSON.stringify(template)],
      );
    });
  }

  /**
   * One step of everything that moves by itself, each row at most one status
   * per step, with set-based updates (receipts stop a day after the last
   * change, as a provider's would, which also keeps seeded history still): due templates reviewed; scheduled
   * campaigns started; in-flight messages and recipients advanced; up to
   * `batch` pending recipients per running campaign sent; campaigns with
   * nothing pending or sending completed.
   */
  async tick(batch: number, startable: readonly string[]): Promise<void> {
    const now = this.now();
    await this.reviewTemplates();
    const due = await this.db.query<{ id: number }>(
      "select id from sandbox.campaigns where status = 'scheduled' and scheduled_at <= $1 order by id",
      [now],
    );
    for (const c of due.rows) await this.startCampaign(c.id, startable);

    await this.db.query(
      `update sandbox.messages m set
         status = case m.status
           when 'queued' then case when ${UNREACHABLE_PHONE_SQL("coalesce(u.phone, '')")} then 'failed' else 'sent' end
           when 'sent' then 'delivered' else 'read' end,
         error = case when m.status = 'queued' and ${UNREACHABLE_PHONE_SQL("coalesce(u.phone, '')")} then $2 else m.error end,
         updated_at = $1
       from sandbox.chat_users u
       where u.id = m.chat_user_id and m.direction = 'outbound' and m.campaign_recipient_id is null
         and (m.status = 'queued' or m.updated_at > $1::timestamptz - interval '1 day')
         and (m.status in ('queued', 'sent') or (m.status = 'delivered' and ${READ_RULE_SQL("m.id")}))`,
      [now, UNREACHABLE_ERROR],
    );

    // A campaign message takes its recipient's status, so the two never disagree.
    await this.db.query(
      `with moved as (update sandbox.campaign_recipients r set
         status = case r.status
           when 'sending' then case when ${UNREACHABLE_PHONE_SQL("r.phone")} then 'failed' else 'sent' end
           when 'sent' then 'delivered' else 'read' end,
         error = case when r.status = 'sending' and ${UNREACHABLE_PHONE_SQL("r.phone")} then $2 else r.error end,
         sent_at = case when r.status = 'sending' and not ${UNREACHABLE_PHONE_SQL("r.phone")} then $1 else r.sent_at end,
         delivered_at = case when r.status = 'sent' then $1 else r.delivered_at end,
         read_at = case when r.status = 'delivered' then $1 else r.read_at end,
         updated_at = $1
       where (r.status = 'sending' or r.updated_at > $1::timestamptz - interval '1 day')
         and (r.status in ('sending', 'sent') or (r.status = 'delivered' and ${READ_RULE_SQL("r.id")}))
       returning r.id, r.status, r.error)
       update sandbox.messages m set status = moved.status, error = moved.error, updated_at = $1
       from moved where m.campaign_recipient_id = moved.id`,
      [now, UNREACHABLE_ERROR],
    );

    const running = await this.db.query<{ id: number }>(
      "select id from sandbox.campaigns where status = 'running' order by id",
    );
    for (const c of running.rows) await this.sendBatch(c.id, batch, now);
    await this.db.query(
      `update sandbox.campaigns c set status = 'completed', completed_at = $1, updated_at = $1
       where c.status = 'running' and not exists (
         select 1 from sandbox.campaign_recipients r where r.campaign_id = c.id and r.status in ('pending', 'sending'))`,
      [now],
    );
  }
}

/** The next `$2` pending recipients of campaign `$1`. */
const NEXT_BATCH_SQL = `select id, contact_id, phone from sandbox.campaign_recipients
  where campaign_id = $1 and status = 'pending' order by id limit $2`;

/** The chat user of recipient `n`, chosen as POST /messages chooses it for a contact. */
const RECIPIENT_CHAT_USER_SQL = `cross join lateral (
  select u.id from sandbox.chat_users u where u.contact_id = n.contact_id or u.phone = n.phone
  order by (u.contact_id = n.contact_id) desc nulls last, (u.type = 'phonechat') desc, u.id limit 1) u`;

const CHAT_USER_SORT_COLUMNS: Record<string, string> = {
  name: "lower(u.name)",
  email: "lower(u.email)",
  phone: "u.phone",
  last_login: "u.last_login",
  created_at: "u.created_at",
  last_activity: "u.last_activity",
};
