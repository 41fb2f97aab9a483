// An organization's first data: its two phonechat channels (ids 1 and 2 for
// the first organization) and, for the demo, templates in every interesting
// state, ~30 contacts, fields, groups, tags, chat users with conversations,
// and two campaigns. Times are relative to the clock so the 24-hour window has
// someone inside it and someone outside. Every organization made with the
// demo gets the same data, its own rows.
// The records are in seed-data.ts; this file writes them.
import type { Queryable } from "../db.ts";
import { CHAT_USERS, CONTACTS, GROUPS, TAGS, TEMPLATES } from "./seed-data.ts";

/** What a new organization holds: the demo data, or only its channels. */
export type SeedKind = "demo" | "empty";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const seedPhone = (index: number) => `+1415555${String(200 + index).padStart(4, "0")}`;

/** When a new organization was made: its seed's times are relative to the clock. */
export const organizationCreatedAt = (now: Date) => new Date(now.getTime() - 90 * DAY);

/** Inserts `rows` (objects keyed by column) into `sandbox.<table>` in one statement. */
async function insertRows(
  tx: Queryable,
  table: string,
  columns: Record<string, string>,
  rows: Array<Record<string, unknown>>,
): Promise<void> {
  const names = Object.keys(columns);
  await tx.query(
    `insert into sandbox.${table} (${names.join(", ")})
     select ${names.join(", ")} from jsonb_to_recordset($1::jsonb) as x(${names.map((n) => `${n} ${columns[n]}`).join(", ")})`,
    [JSON.stringify(rows)],
  );
}

/**
 * Ids for `counts[table]` new rows of each table, in one statement, ascending:
 * rows written with them get the ids one insert at a time would have given.
 */
async function reserveIds<K extends string>(
  tx: Queryable,
  counts: Record<K, number>,
): Promise<Record<K, number[]>> {
  const tables = Object.keys(counts) as K[];
  const r = await tx.query<Record<K, number[]>>(
    `select ${tables
      .map(
        (t, i) =>
          `(select coalesce(array_agg(nextval('sandbox.${t}_id_seq')::int), '{}') from generate_series(1, $${i + 1}::int)) as ${t}`,
      )
      .join(", ")}`,
    tables.map((t) => counts[t]),
  );
  const row = r.rows[0]!;
  return Object.fromEntries(tables.map((t) => [t, [...row[t]].sort((a, b) => a - b)])) as Record<K, number[]>;
}

/**
 * Seeds organization `org` inside the caller's transaction `tx`: its two
 * channels, then (`demo`) the demo data on them, a dozen set-based statements
 * whatever its size (a thousand organizations are made in seconds).
 */
export async function seedOrganization(tx: Queryable, org: number, now: Date, kind: SeedKind): Promise<void> {
  const at = (msAgo: number) => new Date(now.getTime() - msAgo);
  const channels = await tx.query<{ id: number }>(
    `insert into sandbox.channels (org_id, type, name, phone, created_at) values
     ($1, 'phonechat', 'Acme Store', '+14155550100', $2), ($1, 'phonechat', 'Acme Support', '+14155550111', $2)
     returning id`,
    [org, at(90 * DAY)],
  );
  if (kind === "empty") return;
  const [store, support] = channels.rows.map((r) => r.id).sort((a, b) => a - b) as [number, number];

  const newsletter = GROUPS[1]![2];
  const messageCount = CHAT_USERS.reduce((n, u) => n + u.messages.length, 0);
  const ids = await reserveIds(tx, {
    contacts: CONTACTS.length,
    groups: GROUPS.length,
    tags: TAGS.length,
    templates: TEMPLATES.length,
    chat_users: CHAT_USERS.length,
    conversations: CHAT_USERS.length,
    messages: messageCount,
    campaigns: 2,
    campaign_recipients: newsletter.length,
  });
  const contactIds = ids.contacts;
  const tagIds = ids.tags;

  await tx.query(
    `insert into sandbox.contact_fields (org_id, key, label, type, position, created_at, updated_at) values
     ($1, 'loyalty_tier', 'Loyalty tier', 'text', 1, $2, $2), ($1, 'birthday', 'Birthday', 'date', 2, $2, $2),
     ($1, 'points', 'Points', 'number', 3, $2, $2), ($1, 'vip', 'VIP', 'boolean', 4, $2, $2)`,
    [org, at(60 * DAY)],
  );

  await insertRows(
    tx,
    "contacts",
    {
      id: "int",
      org_id: "int",
      phone: "text",
      first_name: "text",
      last_name: "text",
      email: "text",
      custom_fields: "jsonb",
      opted_out: "boolean",
      opted_out_at: "timestamptz",
      created_at: "timestamptz",
      updated_at: "timestamptz",
    },
    CONTACTS.map((c, i) => ({
      id: contactIds[i],
      org_id: org,
      phone: seedPhone(i),
      first_name: c.first,
      last_name: c.last,
      email: c.email ?? null,
      custom_fields: c.fields ?? {},
      opted_out: c.optedOut === true,
      opted_out_at: c.optedOut ? at(5 * DAY) : null,
      created_at: at((40 - i) * DAY),
      updated_at: at((40 - i) * DAY),
    })),
  );

  await insertRows(
    tx,
    "groups",
    {
      id: "int",
      org_id: "int",
      name: "text",
      description: "text",
      created_at: "timestamptz",
      updated_at: "timestamptz",
    },
    GROUPS.map(([name, description], i) => ({
      id: ids.groups[i],
      org_id: org,
      name,
      description,
      created_at: at(30 * DAY),
      updated_at: at(30 * DAY),
    })),
  );
  await insertRows(
    tx,
    "group_members",
    { org_id: "int", group_id: "int", contact_id: "int", added_at: "timestamptz" },
    GROUPS.flatMap(([, , members], g) =>
      members.map((m) => ({
        org_id: org,
        group_id: ids.groups[g],
        contact_id: contactIds[m],
        added_at: at(29 * DAY),
      })),
    ),
  );

  await insertRows(
    tx,
    "tags",
    {
      id: "int",
      org_id: "int",
      name: "text",
      color: "text",
      description: "text",
      created_at: "timestamptz",
      updated_at: "timestamptz",
    },
    TAGS.map(([name, color, description], i) => ({
      id: tagIds[i],
      org_id: org,
      name,
      color,
      description,
      created_at: at(30 * DAY),
      updated_at: at(30 * DAY),
    })),
  );

  const templateIds: Record<string, number> = {};
  await insertRows(
    tx,
    "templates",
    {
      id: "int",
      org_id: "int",
      channel_id: "int",
      name: "text",
      language: "text",
      category: "text",
      body_text: "text",
      body_examples: "jsonb",
      status: "text",
      rejection_reason: "text",
      created_at: "timestamptz",
      updated_at: "timestamptz",
    },
    TEMPLATES.map(([channel, name, language, category, body, examples, status, reason], i) => {
      templateIds[name] = ids.templates[i]!;
      return {
        id: ids.templates[i],
        org_id: org,
        channel_id: channel === 1 ? store : support,
        name,
        language,
        category,
        body_text: body,
        body_examples: examples === null ? null : JSON.parse(examples),
        status,
        rejection_reason: reason,
        created_at: at(20 * DAY),
        updated_at: at(20 * DAY),
      };
    }),
  );

  const chatUsers: Array<Record<string, unknown>> = [];
  const conversations: Array<Record<string, unknown>> = [];
  const messages: Array<Record<string, unknown>> = [];
  for (const [i, u] of CHAT_USERS.entries()) {
    const contact = u.contact !== undefined ? CONTACTS[u.contact]! : undefined;
    const times = u.messages.map(([, hours]) => at(hours * HOUR));
    const lastInbound = u.messages
      .filter(([direction]) => direction === "inbound")
      .map(([, hours]) => at(hours * HOUR))
      .sort((a, b) => b.getTime() - a.getTime())[0];
    const chatUserId = ids.chat_users[i]!;
    const conversationId = ids.conversations[i]!;
    chatUsers.push({
      id: chatUserId,
      org_id: org,
      type: u.type,
      channel_id: u.type === "phonechat" ? store : null,
      contact_id: u.contact !== undefined ? contactIds[u.contact] : null,
      name: contact ? `${contact.first} ${contact.last}` : u.name,
      email: contact?.email ?? u.email ?? null,
      phone: u.contact !== undefined ? seedPhone(u.contact) : null,
      need_human: u.needHuman === true,
      unread_count: u.unread ?? 0,
      last_login: u.type === "chat_web" ? times.at(-1) : null,
      last_activity: times.at(-1),
      last_inbound_at: lastInbound ?? null,
      created_at: at((20 - i) * DAY),
      updated_at: at((20 - i) * DAY),
    });
    conversations.push({
      id: conversationId,
      org_id: org,
      chat_user_id: chatUserId,
      channel_id: store,
      tag_id: u.needHuman ? tagIds[1] : null,
      status: "open",
      created_at: times[0],
      last_message_at: times.at(-1),
    });
    for (const [direction, hours, text] of u.messages) {
      messages.push({
        id: ids.messages[messages.length],
        org_id: org,
        conversation_id: conversationId,
        chat_user_id: chatUserId,
        channel_id: store,
        direction,
        type: "text",
        text,
        status: direction === "inbound" ? "received" : "read",
        created_at: at(hours * HOUR),
        updated_at: at(hours * HOUR),
      });
    }
  }
  await insertRows(
    tx,
    "chat_users",
    {
      id: "int",
      org_id: "int",
      type: "text",
      channel_id: "int",
      contact_id: "int",
      name: "text",
      email: "text",
      phone: "text",
      need_human: "boolean",
      unread_count: "int",
      last_login: "timestamptz",
      last_activity: "timestamptz",
      last_inbound_at: "timestamptz",
      created_at: "timestamptz",
      updated_at: "timestamptz",
    },
    chatUsers,
  );
  await insertRows(
    tx,
    "conversations",
    {
      id: "int",
      org_id: "int",
      chat_user_id: "int",
      channel_id: "int",
      tag_id: "int",
      status: "text",
      created_at: "timestamptz",
      last_message_at: "timestamptz",
    },
    conversations,
  );
  await insertRows(
    tx,
    "messages",
    {
      id: "int",
      org_id: "int",
      conversation_id: "int",
      chat_user_id: "int",
      channel_id: "int",
      direction: "text",
      type: "text",
      text: "text",
      status: "text",
      created_at: "timestamptz",
      updated_at: "timestamptz",
    },
    messages,
  );

  // A finished campaign with recipients in every final status, and a draft.
  const [doneId, draftId] = ids.campaigns as [number, number];
  await tx.query(
    `insert into sandbox.campaigns (id, org_id, name, integration_id, template_id, conversation_tag_id, group_ids,
       template_parameters, status, created_at, updated_at, started_at, completed_at)
     values ($1, $2, 'Spring sale 2026', $3, $4, $5, $6::int[], '{"first_name":"amigo","discount":"20%"}', 'completed',
       $7, $8, $7, $8),
       ($9, $2, 'VIP order follow-up', $3, $10, $11, $12::int[], '{"first_name":"friend","order_id":"VIP-2026"}', 'draft',
       $13, $13, null, null)`,
    [
      doneId,
      org,
      store,
      templateIds["spring_sale"],
      tagIds[0],
      [ids.groups[1]],
      at(10 * DAY),
      at(10 * DAY - 2 * HOUR),
      draftId,
      templateIds["order_update"],
      tagIds[1],
      [ids.groups[0]],
      at(1 * DAY),
    ],
  );
  const outcome = (i: number) => {
    const c = CONTACTS[i]!;
    if (c.optedOut) return "skipped";
    if (seedPhone(i).endsWith("9")) return "failed";
    return ["read", "delivered", "read", "sent"][i % 4]!;
  };
  const finished = at(10 * DAY - HOUR);
  await insertRows(
    tx,
    "campaign_recipients",
    {
      id: "int",
      org_id: "int",
      campaign_id: "int",
      contact_id: "int",
      phone: "text",
      status: "text",
      error: "text",
      created_at: "timestamptz",
      updated_at: "timestamptz",
      sent_at: "timestamptz",
      delivered_at: "timestamptz",
      read_at: "timestamptz",
    },
    newsletter.map((i, n) => {
      const status = outcome(i);
      return {
        id: ids.campaign_recipients[n],
        org_id: org,
        campaign_id: doneId,
        contact_id: contactIds[i],
        phone: seedPhone(i),
        status,
        error:
          status === "skipped"
            ? "the contact has opted out"
            : status === "failed"
              ? "the phone number is not on the messaging network"
              : null,
        created_at: at(10 * DAY),
        updated_at: finished,
        sent_at: ["sent", "delivered", "read"].includes(status) ? finished : null,
        delivered_at: ["delivered", "read"].includes(status) ? finished : null,
        read_at: status === "read" ? finished : null,
      };
    }),
  );
}
