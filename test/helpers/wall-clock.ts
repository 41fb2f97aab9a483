// Times of day as a zone's wall clock shows them now, for tests that set
// quiet or business hours around the present moment.

/** The hour (0–23) it is now in `timeZone`. */
export function hourNowIn(timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hour: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date());
  return Number(parts.find((p) => p.type === "hour")?.value);
}

/** `HH:00-HH:00` in `timeZone`: from `before` hours before the current hour to `after` hours after it. */
export function hoursAroundNow(timeZone: string, before: number, after: number): string {
  const hh = (h: number) => `${String((h + 24) % 24).padStart(2, "0")}:00`;
  const now = hourNowIn(timeZone);
  return `${hh(now - before)}-${hh(now + after)}`;
}
