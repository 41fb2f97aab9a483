// The API's channel types (`phonechat`, `chat_web`…) in people's words, for
// every screen that shows one: lists, cards and the inbox. Not escaped: the
// caller escapes where it posts.

const CHAT_TYPE_LABELS: Record<string, string> = {
  chat_web: "Web chat",
  phonechat: "Phone chat",
  messenger: "Messenger",
  slack: "Slack",
  telegram: "Telegram",
};

/** `Phone chat` for `phonechat`; an unknown type as the API gave it. */
export const chatTypeLabel = (type: unknown): string =>
  typeof type === "string" && type ? (CHAT_TYPE_LABELS[type] ?? type) : "";
