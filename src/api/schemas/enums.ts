// The API's closed lists (statuses, types, sort orders) and their types.

export const MESSAGE_TYPES = ["text", "template", "image", "document"] as const;
export const FIELD_TYPES = ["text", "number", "date", "boolean"] as const;
export const TEMPLATE_CATEGORIES = ["UTILITY", "MARKETING", "AUTHENTICATION"] as const;
export const TEMPLATE_STATUSES = ["pending", "approved", "rejected", "paused", "disabled"] as const;
export const DELETABLE_TEMPLATE_STATUSES = ["pending", "rejected", "disabled"] as const;
export const BUTTON_TYPES = ["QUICK_REPLY", "URL"] as const;
export const CAMPAIGN_STATUSES = [
  "draft",
  "scheduled",
  "running",
  "paused",
  "completed",
  "failed",
  "cancelled",
] as const;
export const RECIPIENT_STATUSES = [
  "pending",
  "sending",
  "sent",
  "delivered",
  "read",
  "failed",
  "skipped",
] as const;
export const CHAT_USER_TYPES = ["chat_web", "phonechat", "messenger", "slack", "telegram"] as const;
export const CHAT_USER_SORT_FIELDS = [
  "name",
  "email",
  "phone",
  "last_login",
  "created_at",
  "last_activity",
] as const;
export const SORT_ORDERS = ["ASC", "DESC"] as const;

export type MessageType = (typeof MESSAGE_TYPES)[number];
export type FieldType = (typeof FIELD_TYPES)[number];
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];
export type ChatUserType = (typeof CHAT_USER_TYPES)[number];
