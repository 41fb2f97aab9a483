// The simulated delivery clock: each tick reviews due templates, starts due
// campaigns, moves outbound messages and campaign recipients one status on
// (queued/sending → sent or failed → delivered → read), sends the next batch
// of each running campaign and completes the finished ones (docs/sandbox.md),
// for every organization at once; what it writes names the organization of
// the campaign or conversation it belongs to.
import type { Db } from "../db.ts";
import type { CampaignsStore } from "./campaigns.ts";
import { SandboxTable } from "./sql.ts";
import { reviewTemplates } from "./templates.ts";

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

/** The next `$2` pending recipients of campaign `$1`. */
const NEXT_BATCH_SQL = `select id, contact_id, phone from sandbox.campaign_recipients
  where campaign_id = $1 and status = 'pending' order by id limit $2`;

/** The chat user of recipient `n` in organization `org` (a parameter), chosen as POST /messages chooses it for a contact. */
const RECIPIENT_CHAT_USER_SQL = (org: string) => `cross join lateral (
  select u.id from sandbox.chat_users u where u.org_id = ${org} and (u.contact_id = n.contact_id or u.phone = n.phone)
  order by (u.contact_id = n.contact_id) desc nulls last, (u.type = 'phonechat') desc, u.id limit 1) u`;

/** What recipients who answer a campaign write back (docs/sandbox.md, "Customers write back"). */
export const REPLY_TEXTS = [
  "Thanks!",
  "Great, see you then.",
  "Can I change the date?",
  "Is this offer still valid tomorrow?",
];
export const NEED_HUMAN_TEXT = "I would like to talk to someone, please.";
/** One recipient in five answers a campaign message once it is read; one in three of those asks for a human. */
export const REPLY_RULE_SQL = (idColumn: string) => `${idColumn} % 5 = 2`;
export const NEED_HUMAN_RULE_SQL = (idColumn: string) => `${idColumn} % 3 = 0`;

/**
 * CTEs after `moved` (recipients moved one step this tick): the recipients
 * that just reached `read` and follow the reply rule write back in the
 * conversation of their campaign message, as a person would, which opens
 * the 24-hour window, counts as unread and, for some, asks for a human.
 */
const CAMPAIGN_REPLIES_SQL = `replied as (
         select m.org_id, m.conversation_id, m.chat_user_id, m.channel_id, moved.id as rid
         from moved join sandbox.messages m on m.campaign_recipient_id = moved.id
         where moved.status = 'read' and ${REPLY_RULE_SQL("moved.id")}),
       reply_rows as (
         insert into sandbox.messages (org_id, conversation_id, chat_user_id, channel_id, direction, type, text, status,
           created_at, updated_at)
         select org_id, conversation_id, chat_user_id, channel_id, 'inbound', 'text',
           case when ${NEED_HUMAN_RULE_SQL("rid")} then $4::text else ($3::text[])[rid % 4 + 1] end,
           'received', $1, $1 from replied
         returning conversation_id, chat_user_id),
       reply_conversations as (
         update sandbox.conversations set last_message_at = $1 where id in (select conversation_id from reply_rows)),
       reply_users as (
         update sandbox.chat_users u set last_activity = $1, last_inbound_at = $1, unread_count = u.unread_count + 1,
           updated_at = $1,
           need_human = u.need_human or exists (
             select 1 from replied where replied.chat_user_id = u.id and ${NEED_HUMAN_RULE_SQL("replied.rid")})
         where u.id in (select chat_user_id from reply_rows))`;

export class Delivery extends SandboxTable {
  /** The campaigns of an organization (a scheduled campaign starts as its `send` would start it). */
  private readonly campaignsOf: (org: number) => CampaignsStore;
  constructor(db: Db, clock: () => Date, campaignsOf: (org: number) => CampaignsStore) {
    super(db, clock);
    this.campaignsOf = campaignsOf;
  }

  /**
   * Sends the next `batch` pending recipients of a running campaign, as
   * POST /messages would send each one a template, in three set-based
   * statements: phonechat chat users for recipients without one, an open
   * conversation on the campaign's channel for chat users without one, then
   * recipients `sending` with one `queued` template message each in that
   * conversation, which takes the campaign's tag (docs/sandbox.md).
   */
  private async sendBatch(campaignId: number, org: number, batch: number, now: Date): Promise<void> {
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
         from sandbox.campaigns c join sandbox.templates t on t.id = c.template_id where c.id = $1 and c.org_id = $2`,
        [campaignId, org],
        tx,
      );
      if (!k) return;
      await tx.query(
        `insert into sandbox.chat_users (org_id, type, channel_id, contact_id, name, phone, email, created_at, updated_at)
         select $5::int, 'phonechat', $3::int, n.contact_id, nullif(concat_ws(' ', c.first_name, c.last_name), ''), n.phone,
           c.email, $4::timestamptz, $4::timestamptz
         from (${NEXT_BATCH_SQL}) n join sandbox.contacts c on c.id = n.contact_id
         where not exists (select 1 from sandbox.chat_users u
                           where u.org_id = $5 and (u.contact_id = n.contact_id or u.phone = n.phone))`,
        [campaignId, batch, k.integration_id, now, org],
      );
      await tx.query(
        `insert into sandbox.conversations (org_id, chat_user_id, channel_id, tag_id, status, created_at)
         select distinct $6::int, u.id, $3::int, $4::int, 'open', $5::timestamptz
         from (${NEXT_BATCH_SQL}) n ${RECIPIENT_CHAT_USER_SQL("$6")}
         where not exists (select 1 from sandbox.conversations v
                           where v.chat_user_id = u.id and v.channel_id = $3 and v.status = 'open')`,
        [campaignId, batch, k.integration_id, k.conversation_tag_id, now, org],
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
           insert into sandbox.messages (org_id, conversation_id, chat_user_id, channel_id, direction, type, text, template,
             metadata, status, created_at, updated_at, campaign_recipient_id)
           select $8::int, v.id, u.id, $3::int, 'outbound', 'template', $6::text, $7::jsonb,
             jsonb_build_object('campaignId', $1::int), 'queued', $5::timestamptz, $5::timestamptz, n.id
           from n ${RECIPIENT_CHAT_USER_SQL("$8")}
           cross join lateral (select id from sandbox.conversations
                               where chat_user_id = u.id and channel_id = $3 and status = 'open' order by id desc limit 1) v
           returning conversation_id, chat_user_id),
         stamped as (
           update sandbox.conversations set last_message_at = $5, tag_id = coalesce($4::int, tag_id)
           where id in (select conversation_id from sent))
         update sandbox.chat_users set last_activity = $5, updated_at = $5 where id in (select chat_user_id from sent)`,
        [
          campaignId,
          batch,
          k.integration_id,
          k.conversation_tag_id,
          now,
          text,
          JSON.stringify(template),
          org,
        ],
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
  /** When the clock next has work without a write: a pending template's review or a scheduled start. */
  async nextDue(): Promise<Date | undefined> {
    const r = await this.db.query<{ at: Date | string | null }>(
      `select least(
         (select min(approve_at) from sandbox.templates where status = 'pending' and deleted_at is null),
         (select min(scheduled_at) from sandbox.campaigns where status = 'scheduled')) as at`,
    );
    const at = r.rows[0]?.at;
    return at ? new Date(at) : undefined;
  }

  async tick(batch: number, startable: readonly string[]): Promise<{ running: number; changed: number }> {
    const now = this.now();
    const reviewed = await reviewTemplates(this.db, now, {});
    const due = await this.db.query<{ id: number; org_id: number }>(
      "select id, org_id from sandbox.campaigns where status = 'scheduled' and scheduled_at <= $1 order by id",
      [now],
    );
    for (const c of due.rows) await this.campaignsOf(c.org_id).start(c.id, startable);

    const messages = await this.db.query(
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
    const recipients = await this.db.query(
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
       returning r.id, r.status, r.error),
       ${CAMPAIGN_REPLIES_SQL}
       update sandbox.messages m set status = moved.status, error = moved.error, updated_at = $1
       from moved where m.campaign_recipient_id = moved.id`,
      [now, UNREACHABLE_ERROR, REPLY_TEXTS, NEED_HUMAN_TEXT],
    );

    const running = await this.db.query<{ id: number; org_id: number }>(
      "select id, org_id from sandbox.campaigns where status = 'running' order by id",
    );
    for (const c of running.rows) await this.sendBatch(c.id, c.org_id, batch, now);
    const completed = await this.db.query(
      `update sandbox.campaigns c set status = 'completed', completed_at = $1, updated_at = $1
       where c.status = 'running' and not exists (
         select 1 from sandbox.campaign_recipients r where r.campaign_id = c.id and r.status in ('pending', 'sending'))`,
      [now],
    );
    return {
      running: running.rows.length,
      changed:
        reviewed.approved +
        reviewed.rejected +
        due.rows.length +
        messages.rowCount +
        recipients.rowCount +
        completed.rowCount,
    };
  }
}
