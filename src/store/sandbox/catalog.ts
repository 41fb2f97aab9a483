// Contact fields, contact groups (and their members), conversation tags of one
// organization: the catalog that routes/catalog.ts serves. Deletes are soft (deleted_at).
import type { ContactFieldRow, GroupRow, TagRow } from "./rows.ts";
import { guardUnique, OrgTable } from "./sql.ts";

const FIELD_COLS = "id, key, label, type, position, created_at, updated_at";
const TAG_COLS = "id, name, color, description, created_at, updated_at";

export class FieldsStore extends OrgTable {
  async list(): Promise<ContactFieldRow[]> {
    return this.all<ContactFieldRow>(
      `select ${FIELD_COLS} from sandbox.contact_fields where org_id = $1 and deleted_at is null order by position, id`,
      [this.org],
    );
  }

  async get(id: number): Promise<ContactFieldRow | undefined> {
    return this.live("sandbox.contact_fields", FIELD_COLS, id);
  }

  async create(f: { key: string; label: string; type: string; position: number }): Promise<ContactFieldRow> {
    return guardUnique("key", "a contact field with this key already exists", async () => {
      const row = await this.one<ContactFieldRow>(
        `insert into sandbox.contact_fields (org_id, key, label, type, position, created_at, updated_at)
         values ($6, $1, $2, $3, $4, $5, $5) returning ${FIELD_COLS}`,
        [f.key, f.label, f.type, f.position, this.now(), this.org],
      );
      return row!;
    });
  }

  async update(
    id: number,
    f: { label?: string; type?: string; position?: number },
  ): Promise<ContactFieldRow | undefined> {
    return this.one(
      `update sandbox.contact_fields set label = coalesce($2, label), type = coalesce($3, type),
         position = coalesce($4, position), updated_at = $5
       where id = $1 and org_id = $6 and deleted_at is null returning ${FIELD_COLS}`,
      [id, f.label ?? null, f.type ?? null, f.position ?? null, this.now(), this.org],
    );
  }

  async delete(id: number): Promise<boolean> {
    return this.softDelete("sandbox.contact_fields", id);
  }
}

export class GroupsStore extends OrgTable {
  /** The organization's live groups with their member counts; the organization is `$1`. */
  private select(where: string): string {
    return `select g.id, g.name, g.description, g.created_at, g.updated_at,
      (select count(*) from sandbox.group_members m join sandbox.contacts c on c.id = m.contact_id and c.deleted_at is null
        where m.group_id = g.id)::int as member_count
      from sandbox.groups g where g.org_id = $1 and g.deleted_at is null ${where}`;
  }

  async list(): Promise<GroupRow[]> {
    return (await this.db.query<GroupRow>(`${this.select("")} order by g.name, g.id`, [this.org])).rows;
  }

  async get(id: number): Promise<GroupRow | undefined> {
    return this.one(this.select("and g.id = $2"), [this.org, id]);
  }

  /** Ids among `ids` that do not name a live group. */
  async missing(ids: number[]): Promise<number[]> {
    return this.missingIds("sandbox.groups", ids);
  }

  async create(g: { name: string; description?: string }): Promise<GroupRow> {
    const r = await this.one<{ id: number }>(
      `insert into sandbox.groups (org_id, name, description, created_at, updated_at) values ($4, $1, $2, $3, $3)
       returning id`,
      [g.name, g.description ?? null, this.now(), this.org],
    );
    return (await this.get(r!.id))!;
  }

  async update(id: number, g: { name?: string; description?: string }): Promise<GroupRow | undefined> {
    const r = await this.db.query(
      `update sandbox.groups set name = coalesce($2, name), description = coalesce($3, description), updated_at = $4
       where id = $1 and org_id = $5 and deleted_at is null`,
      [id, g.name ?? null, g.description ?? null, this.now(), this.org],
    );
    return r.rowCount > 0 ? this.get(id) : undefined;
  }

  async delete(id: number): Promise<boolean> {
    return this.softDelete("sandbox.groups", id);
  }

  async addMembers(groupId: number, contactIds: number[]): Promise<number> {
    const r = await this.db.query(
      `insert into sandbox.group_members (org_id, group_id, contact_id, added_at)
       select $4, $1, unnest($2::int[]), $3 on conflict do nothing`,
      [groupId, contactIds, this.now(), this.org],
    );
    return r.rowCount;
  }

  async removeMembers(groupId: number, contactIds: number[]): Promise<number> {
    const r = await this.db.query(
      "delete from sandbox.group_members where group_id = $1 and contact_id = any($2::int[]) and org_id = $3",
      [groupId, contactIds, this.org],
    );
    return r.rowCount;
  }
}

export class TagsStore extends OrgTable {
  async list(): Promise<TagRow[]> {
    return this.all<TagRow>(
      `select ${TAG_COLS} from sandbox.tags where org_id = $1 and deleted_at is null order by lower(name), id`,
      [this.org],
    );
  }

  async get(id: number): Promise<TagRow | undefined> {
    return this.live("sandbox.tags", TAG_COLS, id);
  }

  async create(t: { name: string; color: string; description?: string }): Promise<TagRow> {
    return guardUnique("name", "a tag with this name already exists", async () => {
      const row = await this.one<TagRow>(
        `insert into sandbox.tags (org_id, name, color, description, created_at, updated_at)
         values ($5, $1, $2, $3, $4, $4) returning ${TAG_COLS}`,
        [t.name, t.color, t.description ?? null, this.now(), this.org],
      );
      return row!;
    });
  }

  async update(
    id: number,
    t: { name?: string; color?: string; description?: string },
  ): Promise<TagRow | undefined> {
    return guardUnique("name", "a tag with this name already exists", () =>
      this.one<TagRow>(
        `update sandbox.tags set name = coalesce($2, name), color = coalesce($3, color),
           description = coalesce($4, description), updated_at = $5
         where id = $1 and org_id = $6 and deleted_at is null returning ${TAG_COLS}`,
        [id, t.name ?? null, t.color ?? null, t.description ?? null, this.now(), this.org],
      ),
    );
  }

  async delete(id: number): Promise<boolean> {
    return this.softDelete("sandbox.tags", id);
  }
}
