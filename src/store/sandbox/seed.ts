// An organization's first data: its two phonechat channels (ids 1 and 2 for
// the first organization) and, for the demo, templates in every interesting
// state, ~30 contacts, fields, groups, tags, chat users with conversations,
// and two campaigns. Times are relative to the clock so the 24-hour window has
// someone inside it and someone outside. Every organization made with the
// demo gets the same data, its own rows.
import type { Queryable } from "../db.ts";

/** What a new organization holds: the demo data, or only its channels. */
export type SeedKind = "demo" | "empty";

export const DEMO_ORGANIZATION_NAME = "Acme Retail (sandbox)";
export const DEMO_PLAN = { name: "Business", monthlyMessages: 100_000, contacts: 250_000, channels: 3 };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface SeedContact {
  first: string;
  last: string;
  email?: string;
  optedOut?: boolean;
  fields?: Record<string, unknown>;
}

// Phones are +1415555 02NN with NN the index, so indexes 9, 19 and 29 end in 9 (unreachable).
const CONTACTS: SeedContact[] = [
  {
    first: "Ana",
    last: "Lopez",
    email: "ana.lopez@example.com",
    fields: { loyalty_tier: "gold", points: 1200, vip: true },
  },
  {
    first: "Ben",
    last: "Carter",
    email: "ben.carter@example.com",
    fields: { loyalty_tier: "silver", points: 340 },
  },
  { first: "Chloe", last: "Nguyen", email: "chloe@example.com", fields: { birthday: "1990-04-12" } },
  {
    first: "Diego",
    last: "Martinez",
    email: "diego.m@example.es",
    fields: { loyalty_tier: "gold", vip: true },
  },
  { first: "Emma", last: "Schmidt", optedOut: true, fields: { loyalty_tier: "bronze" } },
  { first: "Farah", last: "Haddad", email: "farah@example.com" },
  { first: "George", last: "Brown", email: "george.brown@example.com", fields: { points: 15 } },
  { first: "Hana", last: "Sato", email: "hana.sato@example.jp" },
  { first: "Ivan", last: "Petrov", email: "ivan@example.com", fields: { loyalty_tier: "silver" } },
  { first: "Julia", last: "Rossi", email: "julia.rossi@example.it", optedOut: true },
  { first: "Kwame", last: "Mensah", email: "kwame@example.com", fields: { vip: false } },
  {
    first: "Laura",
    last: "Garcia",
    email: "laura.garcia@example.es",
    fields: { loyalty_tier: "gold", points: 980 },
  },
  { first: "Mohammed", last: "Ali", email: "m.ali@example.com" },
  { first: "Nora", last: "Jensen", email: "nora@example.dk", fields: { birthday: "1985-11-30" } },
  { first: "Oscar", last: "Silva", email: "oscar.silva@example.com.br", fields: { loyalty_tier: "bronze" } },
  { first: "Priya", last: "Patel", email: "priya.patel@example.com", fields: { vip: true, points: 2500 } },
  { first: "Quentin", last: "Dubois", email: "quentin@example.fr" },
  { first: "Rosa", last: "Fernandez", email: "rosa.f@example.es", optedOut: true },
  { first: "Sam", last: "Wilson", email: "sam.wilson@example.com", fields: { points: 70 } },
  { first: "Tariq", last: "Khan", email: "tariq@example.com" },
  { first: "Uma", last: "Iyer", email: "uma.iyer@example.com", fields: { loyalty_tier: "silver" } },
  { first: "Victor", last: "Hugo", email: "victor@example.fr" },
  { first: "Wen", last: "Li", email: "wen.li@example.com", fields: { birthday: "1995-02-03" } },
  { first: "Ximena", last: "Torres", email: "ximena@example.mx", fields: { loyalty_tier: "gold" } },
  { first: "Yusuf", last: "Demir", email: "yusuf@example.com.tr" },
  { first: "Zoe", last: "Clark", email: "zoe.clark@example.com", optedOut: true },
  { first: "Alex", last: "Morgan", email: "alex.morgan@example.com", fields: { vip: true } },
  { first: "Bianca", last: "Costa", email: "bianca@example.com.br" },
  { first: "Carlos", last: "Ruiz", email: "carlos.ruiz@example.es", fields: { points: 410 } },
  { first: "Dana", last: "Levi", email: "dana@example.co.il" },
];

export const seedPhone = (index: number) => `+1415555${String(200 + index).padStart(4, "0")}`;

interface SeedChatUser {
  type: string;
  contact?: number;
  name?: string;
  email?: string;
  needHuman?: boolean;
  unread?: number;
  /** Messages, oldest first: [direction, hours ago, text]. */
  messages: Array<["inbound" | "outbound", number, string]>;
}

const CHAT_USERS: SeedChatUser[] = [
  {
    type: "phonechat",
    contact: 0,
    unread: 1,
    messages: [
      ["outbound", 30, "Hi Ana, your order A-1001 is on its way."],
      ["inbound", 2, "Thanks! Can I change the delivery address?"],
    ],
  },
  {
    type: "phonechat",
    contact: 1,
    messages: [
      ["inbound", 80, "Do you ship to Canada?"],
      ["outbound", 79, "Yes, we do. Shipping takes 5 to 7 days."],
    ],
  },
  {
    type: "phonechat",
    contact: 3,
    needHuman: true,
    unread: 2,
    messages: [
      ["inbound", 5, "My payment failed twice."],
      ["inbound", 4, "Can someone call me?"],
    ],
  },
  { type: "phonechat", contact: 5, messages: [["inbound", 1, "Is the store open on Sunday?"]], unread: 1 },
  { type: "phonechat", contact: 8, messages: [["inbound", 120, "Stop the newsletter please."]] },
  {
    type: "phonechat",
    contact: 11,
    needHuman: true,
    messages: [
      ["inbound", 50, "I was charged twice."],
      ["outbound", 49, "Sorry about that, we are checking."],
    ],
  },
  {
    type: "chat_web",
    name: "Web visitor",
    email: "visitor42@example.net",
    unread: 1,
    messages: [["inbound", 3, "How do I reset my password?"]],
  },
  {
    type: "chat_web",
    name: "Marta Kowalska",
    email: "marta.k@example.pl",
    messages: [["inbound", 200, "Where can I find the invoice?"]],
  },
  {
    type: "telegram",
    name: "Pavel Novak",
    needHuman: true,
    unread: 3,
    messages: [["inbound", 6, "Hello? Anyone there?"]],
  },
  {
    type: "messenger",
    name: "Grace Kim",
    email: "grace.kim@example.com",
    messages: [["inbound", 26, "Nice shop!"]],
  },
  {
    type: "slack",
    name: "Partner Ops",
    email: "ops@partner.example.com",
    messages: [
      ["inbound", 12, "Daily stock file uploaded."],
      ["outbound", 11, "Received, thanks."],
    ],
  },
  { type: "phonechat", contact: 15, messages: [["inbound", 23, "Do you have gift cards?"]] },
];

/** Groups: name, description, members (indexes of CONTACTS). */
const GROUPS: Array<[string, string, number[]]> = [
  ["VIP customers", "Gold tier and VIP flag", [0, 3, 11, 15, 23, 26]],
  [
    "Newsletter",
    "Subscribed to the monthly newsletter",
    [0, 1, 2, 4, 5, 6, 7, 8, 9, 12, 13, 18, 19, 20, 25, 28],
  ],
  ["Spain", "Customers in Spain", [3, 11, 17, 28]],
];

/** Templates: channel (1 the store, 2 support), name, language, category, body, examples, status, rejection. */
const TEMPLATES: Array<[1 | 2, string, string, string, string, string | null, string, string | null]> = [
  [
    1,
    "order_update",
    "en",
    "UTILITY",
    "Hi {{first_name}}, your order {{order_id}} is on its way.",
    '{"first_name":"Ana","order_id":"A-1001"}',
    "approved",
    null,
  ],
  [
    1,
    "welcome_message",
    "en",
    "MARKETING",
    "Welcome to Acme! Reply STOP to opt out.",
    null,
    "approved",
    null,
  ],
  [
    1,
    "spring_sale",
    "es",
    "MARKETING",
    "Hola {{first_name}}, la rebaja de primavera empieza hoy: {{discount}} de descuento.",
    '{"first_name":"Diego","discount":"20%"}',
    "approved",
    null,
  ],
  [
    1,
    "appointment_reminder",
    "pt_BR",
    "UTILITY",
    "Olá {{name}}, lembrete da sua visita em {{date}}.",
    '{"name":"Oscar","date":"12/05"}',
    "approved",
    null,
  ],
  [
    1,
    "loyalty_points",
    "en",
    "MARKETING",
    "You have {{points}} points to spend.",
    '{"points":"120"}',
    "pending",
    null,
  ],
  [
    1,
    "flash_deal",
    "en",
    "MARKETING",
    "FLASH DEAL!!! Click now {{link}}",
    '{"link":"https://example.com"}',
    "rejected",
    "Promotional content does not meet the provider's policy",
  ],
  [
    2,
    "support_followup",
    "en",
    "UTILITY",
    "Hi {{first_name}}, is your issue solved?",
    '{"first_name":"Ben"}',
    "approved",
    null,
  ],
];

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
    tags: 3,
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
    [
      ["Spring sale", "#1D9BD1", "Conversations started by the spring sale campaign"],
      ["Support", "#E01E5A", "Needs an answer from support"],
      ["Billing", "#2EB67D", null],
    ].map(([name, color, description], i) => ({
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
