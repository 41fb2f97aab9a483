// Time zones by their IANA names (issue 39 §1). Intl lists CLDR's names,
// which keep a few that IANA renamed (Asia/Calcutta for Asia/Kolkata,
// America/Buenos_Aires for America/Argentina/Buenos_Aires) and omits UTC:
// ZONES lists IANA's, and canonicalZone() gives every spelling of a zone the
// one name it is saved under, so a saved zone is always found in the list.

/** CLDR's name → IANA's, where they differ (the same zone, renamed). */
const RENAMED: Record<string, string> = {
  "Africa/Asmera": "Africa/Asmara",
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Coral_Harbour": "America/Atikokan",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Godthab": "America/Nuuk",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Mendoza": "America/Argentina/Mendoza",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Europe/Kiev": "Europe/Kyiv",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk",
};

// state: a constant table, never changed.
/** Every spelling of Coordinated Universal Time. */
const UTC_NAMES = new Set(
  [
    "UTC",
    "UCT",
    "GMT",
    "GMT0",
    "GMT+0",
    "GMT-0",
    "Greenwich",
    "Universal",
    "Zulu",
    "Etc/UTC",
    "Etc/UCT",
    "Etc/GMT",
    "Etc/GMT0",
    "Etc/GMT+0",
    "Etc/GMT-0",
    "Etc/Greenwich",
    "Etc/Universal",
    "Etc/Zulu",
  ].map((z) => z.toLowerCase()),
);

/** Every zone by its IANA name, UTC first, then in alphabetical order. */
export const ZONES: readonly string[] = [
  "UTC",
  ...[...new Set(Intl.supportedValuesOf("timeZone").map((z) => RENAMED[z] ?? z))]
    .filter((z) => z !== "UTC")
    .sort(),
];

/** The names a zone was known by, for the search (Kiev finds Europe/Kyiv). */
const FORMER: Record<string, string[]> = {};
for (const [old, now] of Object.entries(RENAMED)) FORMER[now] = [...(FORMER[now] ?? []), old];

function resolved(tz: string): string | undefined {
  if (!tz || !/^[A-Za-z0-9_+\-/]+$/.test(tz)) return undefined;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * The one name a zone is saved under: IANA's, in its own case (`utc` and
 * `Etc/UTC` are UTC, `America/Buenos_Aires` is America/Argentina/Buenos_Aires);
 * undefined when it is no zone.
 */
export function canonicalZone(tz: string): string | undefined {
  const typed = tz.trim();
  const r = resolved(typed);
  if (!r) return undefined;
  if (UTC_NAMES.has(typed.toLowerCase()) || UTC_NAMES.has(r.toLowerCase())) return "UTC";
  const listed = ZONES.find((z) => z.toLowerCase() === typed.toLowerCase());
  if (listed) return listed;
  return RENAMED[r] ?? r;
}

/** A zone as people read it: `America/Argentina/Buenos Aires`. */
export const zoneLabel = (tz: string): string => tz.replace(/_/g, " ");

/**
 * The zones matching what a person typed (a city, a region, a former name,
 * in any case, spaces for underscores), those whose city starts with it first;
 * `also` (a saved value not in the list) is offered when it matches too.
 */
export function searchZones(query: string, limit: number, also?: string): string[] {
  const q = query.trim().toLowerCase().replace(/\s+/g, "_");
  const all = also && !ZONES.includes(also) ? [also, ...ZONES] : [...ZONES];
  if (!q) return all.slice(0, limit);
  const names = (z: string) => [z, ...(FORMER[z] ?? [])].map((n) => n.toLowerCase());
  const hits = all.filter((z) => names(z).some((n) => n.includes(q)) || (z === "UTC" && UTC_NAMES.has(q)));
  const city = (z: string) => names(z).some((n) => (n.split("/").pop() ?? "").startsWith(q));
  return [...hits.filter(city), ...hits.filter((z) => !city(z))].slice(0, limit);
}
