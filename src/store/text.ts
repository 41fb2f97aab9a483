// What a customer, a person or a workflow step writes can hold characters no
// store keeps: NUL (PostgreSQL's text and jsonb refuse it) and lone UTF-16
// surrogates (not Unicode; jsonb refuses their escapes). Every text written to
// the store, or posted from what was stored, passes here first: each such
// character becomes U+FFFD, the rest is kept as written.

const REPLACEMENT = "\uFFFD";
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with NUL and lone surrogates replaced by U+FFFD. */
export function storable(text: string): string {
  const wellFormed = text.replace(LONE_SURROGATE, REPLACEMENT);
  return wellFormed.includes("\u0000") ? wellFormed.replaceAll("\u0000", REPLACEMENT) : wellFormed;
}

/** JSON.stringify with every string (member names too) made storable: safe for a jsonb column. */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "string") return storable(v);
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).some((k) => storable(k) !== k))
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [storable(k), x]));
    return v;
  });
}
