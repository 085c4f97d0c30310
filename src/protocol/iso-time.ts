// ISO 8601 UTC text of a ms timestamp, the same as `new Date(ms).toISOString()` at a fraction of its cost: a page of
// trades formats several dates per row, and rows of one page mostly share a day or two (a consolidated entry's game
// time and settle date alternate), so the texts of the two days last used are kept and only the time of day is
// formatted.
const MS_PER_DAY = 86_400_000;
/** Dates whose text toISOString writes as YYYY-MM-DD (years 0 to 9999); others take the Date path. */
const FIRST_MS = Date.UTC(0, 0, 1) - 1;
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

let cachedDay = NaN;
let cachedDayText = '';
let previousDay = NaN;
let previousDayText = '';

export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms <= FIRST_MS || ms > LAST_MS) return new Date(ms).toISOString();
  const day = Math.floor(ms / MS_PER_DAY);
  if (day !== cachedDay) {
    const text = day === previousDay ? previousDayText : new Date(day * MS_PER_DAY).toISOString().slice(0, 11);
    previousDay = cachedDay;
    previousDayText = cachedDayText;
    cachedDay = day;
    cachedDayText = text;
  }
  let rest = ms - day * MS_PER_DAY;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  const millisText = millis < 10 ? '00' + millis : millis < 100 ? '0' + millis : String(millis);
  return `${cachedDayText}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${millisText}Z`;
}
