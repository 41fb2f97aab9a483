// The names Slack shows for the people and channels of the screen scripts'
// fixtures. Slack draws `<@U0ANA>` as @Ana García for every reader; the
// renderer cannot look names up and would draw the id, so the JSON it draws
// gets the label Slack would show (`<@U0ANA|Ana García>`). Only the PNG's
// input: the Block Kit the app sends is unchanged.
const NAMES: Record<string, string> = {
  U0ANA: "Ana García",
  U0LUIS: "Luis Pérez",
  C0GENERAL: "general",
  C0SUPPORT: "support",
};

/** `json` with each known `<@U…>` and `<#C…>` labelled as Slack shows it. */
export const withNames = (json: string): string =>
  json.replace(/<([@#])([UC][A-Z0-9]+)>/g, (whole, sign: string, id: string) =>
    NAMES[id] ? `<${sign}${id}|${NAMES[id]}>` : whole,
  );
