// A writer's thread reply as the customer will read it: plain text, no Slack
// markup. Slack delivers what was typed in its own forms (`<@U1>`,
// `<!here>`, `<https://x|label>`, `&amp;`); the customer's phone shows none
// of that, so each becomes what the writer saw: a person's name, "@here",
// "label (https://x)".

/** A Slack user's name as people see it; undefined when it cannot be told. */
export type NameOf = (userId: string) => Promise<string | undefined>;

const SPECIAL: Record<string, string> = { here: "@here", channel: "@channel", everyone: "@everyone" };
const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"' };
const decode = (s: string) => s.replace(/&(?:amp|lt|gt|quot);/g, (m) => ENTITIES[m] ?? m);

/** The text with Slack's markup turned into the words a reader saw. */
export async function customerText(text: string, nameOf: NameOf): Promise<string> {
  const names = new Map<string, string>();
  for (const [, id] of text.matchAll(/<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g))
    if (id && !names.has(id)) names.set(id, (await nameOf(id).catch(() => undefined)) ?? "");
  return text.replace(/<([^<>]*)>|&(?:amp|lt|gt|quot);/g, (whole, inner: string | undefined) => {
    if (inner === undefined) return ENTITIES[whole] ?? whole;
    const bar = inner.indexOf("|");
    const target = bar === -1 ? inner : inner.slice(0, bar);
    const label = bar === -1 ? undefined : decode(inner.slice(bar + 1));
    if (target.startsWith("@")) return names.get(target.slice(1)) || label || "someone";
    if (target.startsWith("#")) return label ? `#${label}` : "a channel";
    if (target.startsWith("!subteam^")) return label ?? "a team";
    if (target.startsWith("!date^")) return label ?? "";
    if (target.startsWith("!")) return SPECIAL[target.slice(1)] ?? label ?? `@${target.slice(1)}`;
    const url = decode(target);
    if (url.startsWith("mailto:")) return label ?? url.slice("mailto:".length);
    if (url.startsWith("tel:")) return label ?? url.slice("tel:".length);
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return decode(whole);
    // A link: its label, then where it goes (unless the label is the address itself).
    if (!label || label === url || `http://${label}` === url || `https://${label}` === url) return url;
    return `${label} (${url})`;
  });
}
