/** `YYYY-MM-DD` of a ms time, UTC: the day a ledger total, a protection's baseline, a journal segment or a capture file is named after. */
const DAY_MS = 86_400_000;
/** The last day formatted: consecutive events fall on the same day, and toISOString is slow. */
let lastDay = { start: 0, end: 0, text: "" };

export function utcDay(ms: number): string {
  if (ms >= lastDay.start && ms < lastDay.end) return lastDay.text;
  const start = Math.floor(ms / DAY_MS) * DAY_MS;
  const text = new Date(ms).toISOString().slice(0, 10);
  if (Number.isFinite(start)) lastDay = { start, end: start + DAY_MS, text };
  return text;
}
