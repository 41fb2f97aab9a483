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

/** When a new organization was made: its seed's times are relative to the clock. */
export const organizationCreatedAt = (now: Date) => new Date(now.getTime() - 90 * DAY);

/**
 * Seeds organization `org` inside the caller's transaction `tx`: its two
 * channels, then (`demo`) the demo data on them.
 */
export async function seedOrganization(tx: Queryable, org: number, now: Date, kind: SeedKind): Promise<void> {
  const at = (msAgo: number) => new Date(now.getTime() - msAgo);
  const q = (sql: string, params: unknown[] = []) => tx.query<{ id: number }>(sql, [org, ...params]);
  const channels = await q(
    `insert into sandbox.channels (org_id, type, name, phone, created_at) values
     ($1, 'phonechat', 'Acme Store', '+14155550100', $2), ($1, 'phonechat', 'Acme Support', '+14155550111', $2)
     returning id`,
    [at(90 * DAY)],
  );
  if (kind === "empty") return;
  const [store, support] = channels.rows.map((r) => r.id) as [number, number];

  await q(
    `insert into sandbox.contact_fields (org_id, key, label, type, position, created_at, updated_at) values
     ($1, 'loyalty_tier', 'Loyalty tier', 'text', 1, $2, $2), ($1, 'birthday', 'Birthday', 'date', 2, $2, $2),
     ($1, 'points', 'Points', 'number', 3, $2, $2), ($1, 'vip', 'VIP', 'boolean', 4, $2, $2)`,
    [at(60 * DAY)],
  );

  const contactIds: number[] = [];
  for (const [i, c] of CONTACTS.entries()) {
    const created = at((40 - i) * DAY);
    const r = await q(
      `insert into sandbox.contacts (org_id, phone, first_name, last_name, email, custom_fields, opted_out, opted_out_at,
         created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) returning id`,
      [
        seedPhone(i),
        c.first,
        c.last,
        c.email ?? null,
        JSON.stringify(c.fields ?? {}),
        c.optedOut === true,
        c.optedOut ? at(5 * DAY) : null,
        created,
      ],
    );
    contactIds.push(r.rows[0]!.id);
  }

  const groups: Array<[string, string, number[]]> = [
    ["VIP customers", "Gold tier and VIP flag", [0, 3, 11, 15, 23, 26]],
    [
      "Newsletter",
      "Subscribed to the monthly newsletter",
      [0, 1, 2, 4, 5, 6, 7, 8, 9, 12, 13, 18, 19, 20, 25, 28],
    ],
    ["Spain", "Customers in Spain", [3, 11, 17, 28]],
  ];
  const groupIds: number[] = [];
  for (const [name, description, members] of groups) {
    const g = await q(
      "insert into sandbox.groups (org_id, name, description, created_at, updated_at) values ($1, $2, $3, $4, $4) returning id",
      [name, description, at(30 * DAY)],
    );
    const gid = g.rows[0]!.id;
    groupIds.push(gid);
    await q(
      "insert into sandbox.group_members (org_id, group_id, contact_id, added_at) select $1, $2, unnest($3::int[]), $4",
      [gid, members.map((m) => contactIds[m]), at(29 * DAY)],
    );
  }

  const tags = await q(
    `insert into sandbox.tags (org_id, name, color, description, created_at, updated_at) values
     ($1, 'Spring sale', '#1D9BD1', 'Conversations started by the spring sale campaign', $2, $2),
     ($1, 'Support', '#E01E5A', 'Needs an answer from support', $2, $2),
     ($1, 'Billing', '#2EB67D', null, $2, $2)
     returning id`,
    [at(30 * DAY)],
  );
  const tagIds = tags.rows.map((r) => r.id);

  const templates: Array<[number, string, string, string, string, string | null, string, string | null]> = [
    // channel, name, language, category, body, examples, status, rejection
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
  const templateIds: Record<string, number> = {};
  for (const [channel, name, language, category, body, examples, status, reason] of templates) {
    const r = await q(
      `insert into sandbox.templates (org_id, channel_id, name, language, category, body_text, body_examples, status,
         rejection_reason, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) returning id`,
      [
        channel === 1 ? store : support,
        name,
        language,
        category,
        body,
        examples,
        status,
        reason,
        at(20 * DAY),
      ],
    );
    templateIds[name] = r.rows[0]!.id;
  }

  for (const [i, u] of CHAT_USERS.entries()) {
    const contact = u.contact !== undefined ? CONTACTS[u.contact]! : undefined;
    const name = contact ? `${contact.first} ${contact.last}` : u.name;
    const times = u.messages.map(([, hours]) => at(hours * HOUR));
    const lastInbound = u.messages
      .filter(([direction]) => direction === "inbound")
      .map(([, hours]) => at(hours * HOUR))
      .sort((a, b) => b.getTime() - a.getTime())[0];
    const cu = await q(
      `insert into sandbox.chat_users (org_id, type, channel_id, contact_id, name, email, phone, need_human, unread_count,
         last_login, last_activity, last_inbound_at, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) returning id`,
      [
        u.type,
        u.type === "phonechat" ? store : null,
        u.contact !== undefined ? contactIds[u.contact] : null,
        name,
        contact?.email ?? u.email ?? null,
        u.contact !== undefined ? seedPhone(u.contact) : null,
        u.needHuman === true,
        u.unread ?? 0,
        u.type === "chat_web" ? times.at(-1) : null,
        times.at(-1),
        lastInbound ?? null,
        at((20 - i) * DAY),
      ],
    );
    const chatUserId = cu.rows[0]!.id;
    const conv = await q(
      `insert into sandbox.conversations (org_id, chat_user_id, channel_id, tag_id, status, created_at, last_message_at)
       values ($1, $2, $3, $4, 'open', $5, $6) returning id`,
      [chatUserId, store, u.needHuman ? tagIds[1] : null, times[0], times.at(-1)],
    );
    for (const [direction, hours, text] of u.messages) {
      await q(
        `insert into sandbox.messages (org_id, conversation_id, chat_user_id, channel_id, direction, type, text, status,
           created_at, updated_at)
         values ($1, $2, $3, $4, $5, 'text', $6, $7, $8, $8)`,
        [
          conv.rows[0]!.id,
          chatUserId,
          store,
          direction,
          text,
          direction === "inbound" ? "received" : "read",
          at(hours * HOUR),
        ],
      );
    }
  }

  // A finished campaign with recipients in every final status, and a draft.
  const done = await q(
    `insert into sandbox.campaigns (org_id, name, integration_id, template_id, conversation_tag_id, group_ids,
       template_parameters, status, created_at, updated_at, started_at, completed_at)
     values ($1, 'Spring sale 2026', $2, $3, $4, $5::int[], '{"first_name":"amigo","discount":"20%"}', 'completed',
       $6, $7, $6, $7) returning id`,
    [store, templateIds["spring_sale"], tagIds[0], [groupIds[1]], at(10 * DAY), at(10 * DAY - 2 * HOUR)],
  );
  const outcome = (i: number) => {
    const c = CONTACTS[i]!;
    if (c.optedOut) return "skipped";
    if (seedPhone(i).endsWith("9")) return "failed";
    return ["read", "delivered", "read", "sent"][i % 4]!;
  };
  const finished = at(10 * DAY - HOUR);
  for (const i of groups[1]![2]) {
    const status = outcome(i);
    await q(
      `insert into sandbox.campaign_recipients (org_id, campaign_id, contact_id, phone, status, error, created_at,
         updated_at, sent_at, delivered_at, read_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        done.rows[0]!.id,
        contactIds[i],
        seedPhone(i),
        status,
        status === "skipped"
          ? "the contact has opted out"
          : status === "failed"
            ? "the phone number is not on the messaging network"
            : null,
        at(10 * DAY),
        finished,
        ["sent", "delivered", "read"].includes(status) ? finished : null,
        ["delivered", "read"].includes(status) ? finished : null,
        status === "read" ? finished : null,
      ],
    );
  }
  await q(
    `insert into sandbox.campaigns (org_id, name, integration_id, template_id, conversation_tag_id, group_ids,
       template_parameters, status, created_at, updated_at)
     values ($1, 'VIP order follow-up', $2, $3, $4, $5::int[], '{"first_name":"friend","order_id":"VIP-2026"}', 'draft',
       $6, $6)`,
    [store, templateIds["order_update"], tagIds[1], [groupIds[0]], at(1 * DAY)],
  );
}
