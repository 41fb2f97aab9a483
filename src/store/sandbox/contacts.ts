// Contacts of one organization: search and pages, writes (phone unique among
// the organization's live contacts), soft delete, opt-out, and the import's
// batched upsert.
import type { Queryable } from "../db.ts";
import type { ContactRow, ImportContact, Paged, PageQuery } from "./rows.ts";
import { guardUnique, likeTerm, OrgTable } from "./sql.ts";

const CONTACT_COLS =
  "id, phone, first_name, last_name, email, custom_fields, opted_out, opted_out_at, created_at, updated_at";
const DUPLICATE_PHONE = "a contact with this phone number already exists";

export class ContactsStore extends OrgTable {
  async list(
    q: PageQuery & { search?: string; groupId?: number; optedOut?: boolean },
  ): Promise<Paged<ContactRow>> {
    const w = this.where("c").add("c.deleted_at is null");
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
    return this.page<ContactRow>(q, w, {
      from: "sandbox.contacts c",
      select: `select ${CONTACT_COLS} from sandbox.contacts c`,
      orderBy: "c.id desc",
    });
  }

  async get(id: number): Promise<ContactRow | undefined> {
    return this.one(
      `select ${CONTACT_COLS} from sandbox.contacts where id = $1 and org_id = $2 and deleted_at is null`,
      [id, this.org],
    );
  }

  async byPhone(phone: string): Promise<ContactRow | undefined> {
    return this.one(
      `select ${CONTACT_COLS} from sandbox.contacts where org_id = $2 and phone = $1 and deleted_at is null`,
      [phone, this.org],
    );
  }

  /** Ids among `ids` that do not name a live contact. */
  async missing(ids: number[]): Promise<number[]> {
    return this.missingIds("sandbox.contacts", ids);
  }

  async create(c: {
    phone: string;
    first_name?: string;
    last_name?: string;
    email?: string;
    custom_fields?: Record<string, unknown>;
  }): Promise<ContactRow> {
    const now = this.now();
    return guardUnique("phone", DUPLICATE_PHONE, async () => {
      const row = await this.one<ContactRow>(
        `insert into sandbox.contacts (org_id, phone, first_name, last_name, email, custom_fields, created_at, updated_at)
         values ($7, $1, $2, $3, $4, $5, $6, $6) returning ${CONTACT_COLS}`,
        [
          c.phone,
          c.first_name ?? null,
          c.last_name ?? null,
          c.email ?? null,
          JSON.stringify(c.custom_fields ?? {}),
          now,
          this.org,
        ],
      );
      return row!;
    });
  }

  async update(
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
    const params: unknown[] = [id, this.now(), this.org];
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
    return guardUnique("phone", DUPLICATE_PHONE, () =>
      this.one<ContactRow>(
        `update sandbox.contacts set ${[...sets, "updated_at = $2"].join(", ")}
         where id = $1 and org_id = $3 and deleted_at is null returning ${CONTACT_COLS}`,
        params,
      ),
    );
  }

  async delete(id: number): Promise<boolean> {
    return this.softDelete("sandbox.contacts", id);
  }

  async setOptedOut(id: number, optedOut: boolean): Promise<ContactRow | undefined> {
    const now = this.now();
    return this.one<ContactRow>(
      `update sandbox.contacts set opted_out = $2,
         opted_out_at = case when $2 then coalesce(case when opted_out then opted_out_at end, $3) else null end,
         updated_at = $3
       where id = $1 and org_id = $4 and deleted_at is null returning ${CONTACT_COLS}`,
      [id, optedOut, now, this.org],
    );
  }

  /**
   * Writes one batch of imported contacts in one statement. `updateExisting`
   * false leaves a contact whose phone exists untouched; true overwrites the
   * members the file gives and merges custom fields. Returns how many were
   * created and updated. The caller dedupes phones within a batch.
   */
  async importBatch(
    tx: Queryable,
    batch: ImportContact[],
    opts: { updateExisting: boolean; groupId?: number },
  ): Promise<{ created: number; updated: number }> {
    if (batch.length === 0) return { created: 0, updated: 0 };
    const now = this.now();
    const json = JSON.stringify(batch);
    const source = `select $3::int as org_id, x.phone, x.first_name, x.last_name, x.email, coalesce(x.custom_fields, '{}'::jsonb) as custom_fields, $2::timestamptz as created_at, $2::timestamptz as updated_at
      from jsonb_to_recordset($1::jsonb) as x(phone text, first_name text, last_name text, email text, custom_fields jsonb)`;
    const conflict = opts.updateExisting
      ? `do update set first_name = coalesce(excluded.first_name, contacts.first_name),
           last_name = coalesce(excluded.last_name, contacts.last_name),
           email = coalesce(excluded.email, contacts.email),
           custom_fields = contacts.custom_fields || excluded.custom_fields,
           updated_at = excluded.updated_at`
      : "do nothing";
    const r = await tx.query<{ inserted: boolean }>(
      `insert into sandbox.contacts (org_id, phone, first_name, last_name, email, custom_fields, created_at, updated_at)
       ${source}
       on conflict (org_id, phone) where deleted_at is null ${conflict}
       returning (xmax = 0) as inserted`,
      [json, now, this.org],
    );
    const created = r.rows.filter((row) => row.inserted).length;
    if (opts.groupId !== undefined) {
      await tx.query(
        `insert into sandbox.group_members (org_id, group_id, contact_id, added_at)
         select $4, $1, c.id, $3 from sandbox.contacts c
         where c.org_id = $4 and c.deleted_at is null and c.phone in (select jsonb_array_elements_text($2::jsonb))
         on conflict do nothing`,
        [opts.groupId, JSON.stringify(batch.map((b) => b.phone)), now, this.org],
      );
    }
    return { created, updated: r.rows.length - created };
  }

  /** Refreshes the planner's statistics after a bulk write (PGlite has no autovacuum to do it). */
  async analyze(): Promise<void> {
    await this.db.query("analyze sandbox.contacts");
  }
}
