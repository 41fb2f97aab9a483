// Internal notes in an inbox thread (docs/inbox.md): never sent to the
// customer. Chatwoot #5100: only lowercase `note:` was recognised, and a note
// reached a customer; here any case counts, also behind bold or italics.

/**
 * A note for the team, never sent: it starts with `//` or with `note:` in any
 * case (`Note:`, `NOTE:`), also behind Slack's bold, italics or strike
 * (`*Note:*`) or a quote.
 */
export function isNote(typed: string): boolean {
  const start = typed.replace(/^[*_~>\s]+/, "");
  return start.startsWith("//") || /^note\s*[*_~]*\s*:/i.test(start);
}
