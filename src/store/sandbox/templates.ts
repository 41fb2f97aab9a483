// Message templates of an organization's channels, and the provider's review
// that approves or rejects them (on demand, or when their review delay is over).

import type { Queryable } from "../db.ts";
import type { TemplateRow } from "./rows.ts";
import { guardUnique, OrgTable } from "./sql.ts";

const TEMPLATE_COLS =
  "id, channel_id, name, language, category, body_text, body_examples, footer_text, buttons, status, rejection_reason, created_at, updated_at";

export class TemplatesStore extends OrgTable {
  async list(q: { channelId?: number; status?: string }): Promise<TemplateRow[]> {
    const w = this.where().add("deleted_at is null");
    if (q.channelId !== undefined) w.add("channel_id = ?", q.channelId);
    if (q.status !== undefined) w.add("status = ?", q.status);
    return (
      await this.db.query<TemplateRow>(
        `select ${TEMPLATE_COLS} from sandbox.templates ${w.sql} order by id`,
        w.params,
      )
    ).rows;
  }

  async get(id: number): Promise<TemplateRow | undefined> {
    return this.one(
      `select ${TEMPLATE_COLS} from sandbox.templates where id = $1 and org_id = $2 and deleted_at is null`,
      [id, this.org],
    );
  }

  async find(channelId: number, name: string, language: string): Promise<TemplateRow | undefined> {
    return this.one(
      `select ${TEMPLATE_COLS} from sandbox.templates
       where org_id = $4 and channel_id = $1 and name = $2 and language = $3 and deleted_at is null`,
      [channelId, name, language, this.org],
    );
  }

  async create(t: {
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
          `insert into sandbox.templates (org_id, channel_id, name, language, category, body_text, body_examples, footer_text,
           buttons, status, approve_at, created_at, updated_at)
         values ($11, $1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $10) returning ${TEMPLATE_COLS}`,
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
            this.org,
          ],
        );
        return row!;
      },
    );
  }

  async delete(id: number): Promise<boolean> {
    return this.softDelete("sandbox.templates", id);
  }

  /**
   * The provider's review of the organization's pending templates (see
   * reviewTemplates): `channelId` set, that channel's now (sync); unset, those
   * whose review delay is over.
   */
  async review(channelId?: number): Promise<{ approved: number; rejected: number }> {
    return reviewTemplates(this.db, this.now(), { org: this.org, channelId });
  }

  async count(channelId: number): Promise<number> {
    return this.countRows(
      "select count(*)::int as n from sandbox.templates where org_id = $2 and channel_id = $1 and deleted_at is null",
      [channelId, this.org],
    );
  }
}

/**
 * The provider's review: a pending template whose name contains `reject` is
 * rejected, every other one approved. With `channelId`, that channel's pending
 * templates now (sync); without, those whose review delay is over: of `org`,
 * or of every organization when `org` is unset (the clock's tick).
 */
export async function reviewTemplates(
  db: Queryable,
  now: Date,
  which: { org?: number; channelId?: number },
): Promise<{ approved: number; rejected: number }> {
  const r = await db.query<{ status: string }>(
    `update sandbox.templates set
       status = case when name like '%reject%' then 'rejected' else 'approved' end,
       rejection_reason = case when name like '%reject%' then 'The template was rejected by the provider review (sandbox rule: names containing "reject")' end,
       updated_at = $1
     where status = 'pending' and deleted_at is null
       and ($3::int is null or org_id = $3::int)
       and (($2::int is null and approve_at <= $1) or channel_id = $2::int)
     returning status`,
    [now, which.channelId ?? null, which.org ?? null],
  );
  const rejected = r.rows.filter((row) => row.status === "rejected").length;
  return { approved: r.rows.length - rejected, rejected };
}
