// Chat users of one organization, their conversations and messages: what
// routes/conversations.ts serves, and what an inbound message writes.
import type { Queryable } from "../db.ts";
import type { ChatUserRow, ConversationRow, MessageRow, Paged, PageQuery } from "./rows.ts";
import { likeTerm, OrgTable } from "./sql.ts";

const CHAT_USER_SORT_COLUMNS: Record<string, string> = {
  name: "lower(u.name)",
  email: "lower(u.email)",
  phone: "u.phone",
  last_login: "u.last_login",
  created_at: "u.created_at",
  last_activity: "u.last_activity",
};

export class ChatUsersStore extends OrgTable {
  async list(
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
    const w = this.where("u");
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
    const column = CHAT_USER_SORT_COLUMNS[q.sortBy ?? "last_activity"] ?? "u.last_activity";
    const order = q.sortOrder ?? "DESC";
    return this.page<ChatUserRow>(q, w, {
      from: "sandbox.chat_users u",
      select: "select u.* from sandbox.chat_users u",
      orderBy: `${column} ${order} nulls last, u.id ${order}`,
    });
  }

  async get(id: number): Promise<ChatUserRow | undefined> {
    return this.one("select * from sandbox.chat_users where id = $1 and org_id = $2", [id, this.org]);
  }

  async byPhone(phone: string): Promise<ChatUserRow | undefined> {
    return this.one(
      `select * from sandbox.chat_users where org_id = $2 and phone = $1
       order by (type = 'phonechat') desc, id limit 1`,
      [phone, this.org],
    );
  }

  async byContact(contactId: number, phone: string): Promise<ChatUserRow | undefined> {
    return this.one(
      `select * from sandbox.chat_users where org_id = $3 and (contact_id = $1 or phone = $2)
       order by (contact_id = $1) desc nulls last, (type = 'phonechat') desc, id limit 1`,
      [contactId, phone, this.org],
    );
  }

  async create(u: {
    type: string;
    channelId: number;
    contactId?: number;
    name?: string;
    phone?: string;
    email?: string;
  }): Promise<ChatUserRow> {
    const row = await this.one<ChatUserRow>(
      `insert into sandbox.chat_users (org_id, type, channel_id, contact_id, name, phone, email, created_at, updated_at)
       values ($8, $1, $2, $3, $4, $5, $6, $7, $7) returning *`,
      [
        u.type,
        u.channelId,
        u.contactId ?? null,
        u.name ?? null,
        u.phone ?? null,
        u.email ?? null,
        this.now(),
        this.org,
      ],
    );
    return row!;
  }

  async update(
    id: number,
    standard: Partial<Record<"name" | "email" | "phone" | "address" | "avatar", string>>,
    customFields: Record<string, string> | undefined,
  ): Promise<ChatUserRow | undefined> {
    const params: unknown[] = [id, this.now(), this.org];
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
    return this.one(
      `update sandbox.chat_users set ${sets.join(", ")} where id = $1 and org_id = $3 returning *`,
      params,
    );
  }
}

/**
 * The demo stays usable: at each start, the `count` phonechat users of each
 * organization who wrote last are put back inside the 24-hour window (as if
 * they wrote an hour ago) when they fell out of it, so a free-text `/sb send`
 * to them works out of the box.
 */
export async function keepDemoWindow(db: Queryable, now: Date, count = 3): Promise<number> {
  const r = await db.query(
    `update sandbox.chat_users set last_inbound_at = $1, last_activity = greatest(last_activity, $1)
      where id in (select id from (
                     select id, row_number() over (partition by org_id order by last_inbound_at desc, id) as n
                     from sandbox.chat_users
                     where type = 'phonechat' and phone is not null and last_inbound_at is not null) latest
                   where n <= $2)
        and last_inbound_at < $3`,
    [new Date(now.getTime() - 3_600_000), count, new Date(now.getTime() - 20 * 3_600_000)],
  );
  return r.rowCount ?? 0;
}

export class ConversationsStore extends OrgTable {
  async ofChatUsers(chatUserIds: number[]): Promise<ConversationRow[]> {
    return this.all<ConversationRow>(
      `select * from sandbox.conversations where chat_user_id = any($1::int[]) and org_id = $2
         order by last_message_at desc nulls last, id desc`,
      [chatUserIds, this.org],
    );
  }

  async get(id: number): Promise<ConversationRow | undefined> {
    return this.one("select * from sandbox.conversations where id = $1 and org_id = $2", [id, this.org]);
  }

  /** The chat user's open conversation on the channel, created when there is none. */
  async open(chatUserId: number, channelId: number): Promise<ConversationRow> {
    const found = await this.one<ConversationRow>(
      `select * from sandbox.conversations where chat_user_id = $1 and channel_id = $2 and status = 'open' and org_id = $3
       order by id desc limit 1`,
      [chatUserId, channelId, this.org],
    );
    if (found) return found;
    const row = await this.one<ConversationRow>(
      `insert into sandbox.conversations (org_id, chat_user_id, channel_id, status, created_at)
       values ($4, $1, $2, 'open', $3) returning *`,
      [chatUserId, channelId, this.now(), this.org],
    );
    return row!;
  }
}

export class MessagesStore extends OrgTable {
  /** The latest `perUser` messages of each chat user, newest first, in one query. */
  async latestOf(chatUserIds: number[], perUser: number): Promise<MessageRow[]> {
    return this.all<MessageRow>(
      `select m.* from unnest($1::int[]) as u(id)
         cross join lateral (
           select * from sandbox.messages where chat_user_id = u.id and org_id = $3
           order by created_at desc, id desc limit $2
         ) m`,
      [chatUserIds, perUser, this.org],
    );
  }

  async inConversation(
    conversationId: number,
    q: PageQuery & { before?: Date; after?: Date },
  ): Promise<Paged<MessageRow>> {
    const w = this.where().add("conversation_id = ?", conversationId);
    if (q.before) w.add("created_at < ?", q.before);
    if (q.after) w.add("created_at > ?", q.after);
    return this.page<MessageRow>(q, w, {
      from: "sandbox.messages",
      select: "select * from sandbox.messages",
      orderBy: "created_at desc, id desc",
    });
  }

  async get(id: number): Promise<MessageRow | undefined> {
    return this.one("select * from sandbox.messages where id = $1 and org_id = $2", [id, this.org]);
  }

  /** Stores a message the chat user sent: it opens the 24-hour window and counts as unread. */
  async recordInbound(m: {
    conversationId: number;
    chatUserId: number;
    channelId: number;
    text?: string;
    /** The person asks for a human: the chat user's needHuman is set. */
    needHuman?: boolean;
    /** An image or a document (default text), its link and a document's file name. */
    type?: string;
    mediaUrl?: string;
    fileName?: string;
  }): Promise<MessageRow> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const row = await this.one<MessageRow>(
        `insert into sandbox.messages (org_id, conversation_id, chat_user_id, channel_id, direction, type, text, media_url,
           file_name, status, created_at, updated_at)
         values ($9, $1, $2, $3, 'inbound', $4, $5, $6, $7, 'received', $8, $8) returning *`,
        [
          m.conversationId,
          m.chatUserId,
          m.channelId,
          m.type ?? "text",
          m.text ?? null,
          m.mediaUrl ?? null,
          m.fileName ?? null,
          now,
          this.org,
        ],
        tx,
      );
      await this.touchConversation(tx, m.conversationId, now);
      await tx.query(
        `update sandbox.chat_users set last_activity = $2, last_inbound_at = $2, unread_count = unread_count + 1,
           need_human = need_human or $3, updated_at = $2 where id = $1 and org_id = $4`,
        [m.chatUserId, now, m.needHuman === true, this.org],
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
        `insert into sandbox.messages (org_id, conversation_id, chat_user_id, channel_id, direction, type, text, template,
           media_url, metadata, status, created_at, updated_at)
         values ($10, $1, $2, $3, 'outbound', $4, $5, $6, $7, $8, 'queued', $9, $9) returning *`,
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
          this.org,
        ],
        tx,
      );
      await this.touchConversation(tx, m.conversationId, now);
      await tx.query(
        `update sandbox.chat_users set last_activity = $2, updated_at = $2,
           need_human = need_human or $3 where id = $1 and org_id = $4`,
        [m.chatUserId, now, m.assignToHuman === true, this.org],
      );
      return row!;
    });
  }

  private touchConversation(tx: Queryable, id: number, now: Date) {
    return tx.query("update sandbox.conversations set last_message_at = $2 where id = $1 and org_id = $3", [
      id,
      now,
      this.org,
    ]);
  }
}
