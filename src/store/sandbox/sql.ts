// What the sandbox's stores share: the database, the injected clock (every
// time written comes from it, never from SQL now(), so tests that move the
// clock see the sandbox move with it), a `where` builder and the page query.
import type { Db, Queryable } from "../db.ts";
import { DuplicateError, isUniqueViolation } from "./errors.ts";
import type { Paged, PageQuery } from "./rows.ts";

/** Escapes LIKE wildcards so a search for `50%` means the text `50%`. */
export const likeTerm = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const offsetOf = (p: PageQuery) => (p.page - 1) * p.limit;

/** Runs fn; a unique violation becomes a DuplicateError naming `field`. */
export async function guardUnique<T>(field: string, message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateError(field, message);
    throw err;
  }
}

/** Builds `where` clauses with numbered parameters. */
export class Where {
  readonly parts: string[] = [];
  readonly params: unknown[];
  constructor(params: unknown[] = []) {
    this.params = params;
  }
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

/** The base of each aggregate's store. */
export abstract class SandboxTable {
  readonly db: Db;
  private readonly clock: () => Date;
  constructor(db: Db, clock: () => Date) {
    this.db = db;
    this.clock = clock;
  }

  protected now(): Date {
    return this.clock();
  }

  /** Every row a statement selects. */
  protected async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.query<T>(sql, params)).rows;
  }

  protected async one<T>(
    sql: string,
    params: unknown[] = [],
    q: Queryable = this.db,
  ): Promise<T | undefined> {
    return (await q.query<T>(sql, params)).rows[0];
  }

  protected async countRows(sql: string, params: unknown[]): Promise<number> {
    const row = await this.one<{ n: number }>(sql, params);
    return Number(row?.n ?? 0);
  }

  /**
   * One page of `select` (a query up to its `where`) filtered by `w`, and the
   * total: the rows of `from` (a table and its alias) that `w` keeps.
   */
  protected async page<T>(
    q: PageQuery,
    w: Where,
    sql: { from: string; select: string; orderBy: string },
  ): Promise<Paged<T>> {
    const total = await this.countRows(`select count(*)::int as n from ${sql.from} ${w.sql}`, w.params);
    const params = [...w.params, q.limit, offsetOf(q)];
    const { rows } = await this.db.query<T>(
      `${sql.select} ${w.sql} order by ${sql.orderBy} limit $${params.length - 1} offset $${params.length}`,
      params,
    );
    return { rows, total };
  }
}

/**
 * The base of an organization's stores: every statement is limited to
 * `this.org`, the organization of the request's key, so one organization
 * never reads, changes or lists another's rows (another's id answers like a
 * missing one). Every row it inserts names `org_id`.
 */
export abstract class OrgTable extends SandboxTable {
  /** The organization whose rows this store sees. */
  readonly org: number;
  constructor(db: Db, clock: () => Date, org: number) {
    super(db, clock);
    this.org = org;
  }

  /** A `where` that starts with the organization (`alias.org_id = $1`). */
  protected where(alias?: string): Where {
    return new Where().add(`${alias ? `${alias}.` : ""}org_id = ?`, this.org);
  }

  /** The live row of `table` with this id in the organization: `cols` of it. */
  protected live<T>(table: string, cols: string, id: number): Promise<T | undefined> {
    return this.one<T>(`select ${cols} from ${table} where id = $1 and org_id = $2 and deleted_at is null`, [
      id,
      this.org,
    ]);
  }

  /** Ids among `ids` that name no live row of `table` in the organization. */
  protected async missingIds(table: string, ids: number[]): Promise<number[]> {
    const found = await this.db.query<{ id: number }>(
      `select id from ${table} where id = any($1::int[]) and org_id = $2 and deleted_at is null`,
      [ids, this.org],
    );
    const have = new Set(found.rows.map((r) => r.id));
    return ids.filter((id) => !have.has(id));
  }

  /** Marks a live row of `table` in the organization deleted; false when there was none. */
  protected async softDelete(table: string, id: number): Promise<boolean> {
    const r = await this.db.query(
      `update ${table} set deleted_at = $2 where id = $1 and org_id = $3 and deleted_at is null`,
      [id, this.now(), this.org],
    );
    return r.rowCount > 0;
  }
}
