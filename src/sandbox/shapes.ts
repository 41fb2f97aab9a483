// Response shapes of the sandbox: the spec shows none, so these are the
// sandbox's choices (docs/sandbox.md), each made here and only here. Records
// keep the member names the spec uses for each resource: contacts are
// snake_case (phone, first_name, custom_fields), everything else camelCase
// (integrationId, bodyText). Absent values are null; times are ISO strings.

import { placeholdersOf } from "../api/schemas.ts";
import { isUnreachablePhone } from "../store/sandbox/delivery.ts";
import type {
  CampaignRow,
  ChannelRow,
  ChatUserRow,
  ContactFieldRow,
  ContactRow,
  ConversationRow,
  GroupRow,
  MessageRow,
  OrganizationRow,
  RecipientRow,
  TagRow,
  TemplateRow,
} from "../store/sandbox/rows.ts";

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** Every list: `{ data, meta: { total, page, limit, totalPages } }`. */
export function page<T, R>(
  rows: T[],
  total: number,
  q: { page: number; limit: number },
  shape: (row: T) => R,
) {
  return {
    data: rows.map(shape),
    meta: { total, page: q.page, limit: q.limit, totalPages: Math.ceil(total / q.limit) },
  };
}

/** Lists the spec gives no paging (fields, groups, tags, templates): everything on one page. */
export function wholeList<T, R>(rows: T[], shape: (row: T) => R) {
  return page(rows, rows.length, { page: 1, limit: Math.max(rows.length, 1) }, shape);
}

/** DELETE answers 200 with this. */
export const deleted = (id: number) => ({ id, deleted: true });

export const contact = (r: ContactRow) => ({
  id: r.id,
  phone: r.phone,
  first_name: r.first_name,
  last_name: r.last_name,
  email: r.email,
  custom_fields: r.custom_fields,
  // Derived from the phone: see UNREACHABLE in store/sandbox/delivery.ts.
  wa_identified: !isUnreachablePhone(r.phone),
  opted_out: r.opted_out,
  opted_out_at: iso(r.opted_out_at),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const contactField = (r: ContactFieldRow) => ({
  id: r.id,
  key: r.key,
  label: r.label,
  type: r.type,
  position: r.position,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const group = (r: GroupRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  memberCount: r.member_count,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const groupMembers = (groupId: number, change: { added?: number; removed?: number }, g: GroupRow) => ({
  groupId,
  ...change,
  memberCount: g.member_count,
});

export const tag = (r: TagRow) => ({
  id: r.id,
  name: r.name,
  color: r.color,
  description: r.description,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const template = (r: TemplateRow) => ({
  id: r.id,
  integrationId: r.channel_id,
  name: r.name,
  language: r.language,
  category: r.category,
  bodyText: r.body_text,
  bodyExamples: r.body_examples,
  placeholders: placeholdersOf(r.body_text),
  footerText: r.footer_text,
  buttons: r.buttons ?? [],
  status: r.status,
  rejectionReason: r.rejection_reason,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const templateSync = (
  channelId: number,
  result: { approved: number; rejected: number; total: number },
) => ({
  channelId,
  synced: result.total,
  approved: result.approved,
  rejected: result.rejected,
});

export const message = (r: MessageRow) => ({
  id: r.id,
  conversationId: r.conversation_id,
  chatUserId: r.chat_user_id,
  channelId: r.channel_id,
  direction: r.direction,
  type: r.type,
  text: r.text,
  template: r.template,
  mediaUrl: r.media_url,
  ...(r.file_name ? { fileName: r.file_name } : {}),
  metadata: r.metadata,
  status: r.status,
  error: r.error,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const conversation = (r: ConversationRow) => ({
  id: r.id,
  channelId: r.channel_id,
  tagId: r.tag_id,
  status: r.status,
  createdAt: iso(r.created_at),
  lastMessageAt: iso(r.last_message_at),
});

export const chatUser = (
  r: ChatUserRow,
  extra: { conversations?: ConversationRow[]; messages?: MessageRow[] } = {},
) => ({
  id: r.id,
  type: r.type,
  channelId: r.channel_id,
  contactId: r.contact_id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  address: r.address,
  avatar: r.avatar,
  customFields: r.custom_fields,
  needHuman: r.need_human,
  unreadCount: r.unread_count,
  hasUnreadMessages: r.unread_count > 0,
  lastLogin: iso(r.last_login),
  lastActivity: iso(r.last_activity),
  lastInboundAt: iso(r.last_inbound_at),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  ...(extra.conversations ? { conversations: extra.conversations.map(conversation) } : {}),
  ...(extra.messages ? { messages: extra.messages.map(message) } : {}),
});

export const campaign = (r: CampaignRow) => ({
  id: r.id,
  name: r.name,
  integrationId: r.integration_id,
  templateId: r.template_id,
  conversationTagId: r.conversation_tag_id,
  groupIds: r.group_ids,
  contactIds: r.contact_ids,
  templateParameters: r.template_parameters,
  scheduledAt: iso(r.scheduled_at),
  status: r.status,
  stats: r.stats,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  startedAt: iso(r.started_at),
  completedAt: iso(r.completed_at),
  cancelledAt: iso(r.cancelled_at),
});

export const recipient = (r: RecipientRow) => ({
  id: r.id,
  campaignId: r.campaign_id,
  contactId: r.contact_id,
  phone: r.phone,
  name: [r.first_name, r.last_name].filter(Boolean).join(" ") || null,
  status: r.status,
  error: r.error,
  sentAt: iso(r.sent_at),
  deliveredAt: iso(r.delivered_at),
  readAt: iso(r.read_at),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const me = (
  org: OrganizationRow,
  channels: ChannelRow[],
  key: { name: string; secret: string; scopes: string[] },
) => ({
  organization: { id: org.id, name: org.name, createdAt: iso(org.created_at) },
  plan: org.plan,
  channels: channels.map((c) => ({ id: c.id, type: c.type, name: c.name, phone: c.phone })),
  apiKey: {
    name: key.name,
    prefix: key.secret.slice(0, 8),
    last4: key.secret.slice(-4),
    scopes: key.scopes,
  },
});

/** Import answer: counts and one error per refused row, with its spreadsheet row number. */
export const importResult = (r: {
  created: number;
  updated: number;
  skipped: number;
  errors: Array<{ row: number; message: string }>;
}) => ({
  created: r.created,
  updated: r.updated,
  skipped: r.skipped,
  failed: r.errors.length,
  errors: r.errors,
});
