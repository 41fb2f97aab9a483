// The demo organization's records (seed.ts writes them, its times relative to
// the clock): contacts, chat users and their messages, groups, templates, tags.
// Indexes matter: groups, chat users and the campaigns name contacts by their
// index in CONTACTS, and a phone's last digit (from the index) decides whether
// it is reachable.
export const DEMO_ORGANIZATION_NAME = "Acme Retail (sandbox)";
export const DEMO_PLAN = { name: "Business", monthlyMessages: 100_000, contacts: 250_000, channels: 3 };

export interface SeedContact {
  first: string;
  last: string;
  email?: string;
  optedOut?: boolean;
  fields?: Record<string, unknown>;
}

// Phones are +1415555 02NN with NN the index (seedPhone, seed.ts), so indexes 9, 19 and 29 end in 9 (unreachable).
export const CONTACTS: SeedContact[] = [
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

export interface SeedChatUser {
  type: string;
  contact?: number;
  name?: string;
  email?: string;
  needHuman?: boolean;
  unread?: number;
  /** Messages, oldest first: [direction, hours ago, text]. */
  messages: Array<["inbound" | "outbound", number, string]>;
}

export const CHAT_USERS: SeedChatUser[] = [
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
export const GROUPS: Array<[string, string, number[]]> = [
  ["VIP customers", "Gold tier and VIP flag", [0, 3, 11, 15, 23, 26]],
  [
    "Newsletter",
    "Subscribed to the monthly newsletter",
    [0, 1, 2, 4, 5, 6, 7, 8, 9, 12, 13, 18, 19, 20, 25, 28],
  ],
  ["Spain", "Customers in Spain", [3, 11, 17, 28]],
];

/** Templates: channel (1 the store, 2 support), name, language, category, body, examples, status, rejection. */
export const TEMPLATES: Array<[1 | 2, string, string, string, string, string | null, string, string | null]> =
  [
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

/** Tags: name, color, description. The first marks the finished campaign's conversations, the second those needing a human. */
export const TAGS: Array<[string, string, string | null]> = [
  ["Spring sale", "#1D9BD1", "Conversations started by the spring sale campaign"],
  ["Support", "#E01E5A", "Needs an answer from support"],
  ["Billing", "#2EB67D", null],
];
