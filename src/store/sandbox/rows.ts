// The sandbox's rows as stored (snake_case columns, schema `sandbox`), and the
// page types of its lists. src/sandbox/shapes.ts turns rows into API records.

export interface OrganizationRow {
  id: number;
  name: string;
  plan: Record<string, unknown>;
  created_at: Date;
}

/** A key of an organization as kept: never the secret, only its hash (not read back). */
export interface ApiKeyRow {
  id: number;
  org_id: number;
  name: string;
  scopes: string[];
}

export interface ChannelRow {
  id: number;
  type: string;
  name: string;
  phone: string | null;
  created_at: Date;
}

export interface ContactRow {
  id: number;
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  custom_fields: Record<string, unknown>;
  opted_out: boolean;
  opted_out_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ContactFieldRow {
  id: number;
  key: string;
  label: string;
  type: string;
  position: number;
  created_at: Date;
  updated_at: Date;
}

export interface GroupRow {
  id: number;
  name: string;
  description: string | null;
  member_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface TagRow {
  id: number;
  name: string;
  color: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface TemplateRow {
  id: number;
  channel_id: number;
  name: string;
  language: string;
  category: string;
  body_text: string;
  body_examples: Record<string, string> | null;
  footer_text: string | null;
  buttons: unknown[] | null;
  status: string;
  rejection_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ChatUserRow {
  id: number;
  type: string;
  channel_id: number | null;
  contact_id: number | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
  avatar: string | null;
  custom_fields: Record<string, string>;
  need_human: boolean;
  unread_count: number;
  last_login: Date | null;
  last_activity: Date | null;
  last_inbound_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ConversationRow {
  id: number;
  chat_user_id: number;
  channel_id: number;
  tag_id: number | null;
  status: string;
  created_at: Date;
  last_message_at: Date | null;
}

export interface MessageRow {
  id: number;
  conversation_id: number;
  chat_user_id: number;
  channel_id: number;
  direction: "inbound" | "outbound";
  type: string;
  text: string | null;
  template: Record<string, unknown> | null;
  media_url: string | null;
  /** A document's file name, when a customer sent one (control route). */
  file_name: string | null;
  metadata: Record<string, unknown> | null;
  status: string;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CampaignStats {
  total: number;
  pending: number;
  sending: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  skipped: number;
}

export interface CampaignRow {
  id: number;
  name: string;
  integration_id: number;
  template_id: number;
  conversation_tag_id: number | null;
  group_ids: number[];
  contact_ids: number[];
  template_parameters: Record<string, string> | null;
  scheduled_at: Date | null;
  status: string;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  stats: CampaignStats;
}

export interface RecipientRow {
  id: number;
  campaign_id: number;
  contact_id: number;
  phone: string;
  first_name: string | null;
  last_name: string | null;
  status: string;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  read_at: Date | null;
}

export interface PageQuery {
  page: number;
  limit: number;
}

export interface Paged<T> {
  rows: T[];
  total: number;
}

/** A contact as read from an import file: undefined members leave the stored value alone. */
export interface ImportContact {
  phone: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  custom_fields?: Record<string, unknown>;
}
