// How deeply a JSON text nests, found without parsing it. V8's JSON.parse takes about 1 µs per level of nesting (a
// 1 MB body of 500,000 nested arrays blocks the event loop for 0.5-0.7 s), ten times its cost per byte on flat JSON,
// and no request of this API nests deeper than a few levels: deeper bodies are refused before they are parsed.

/** Deepest nesting of objects and arrays a request body may have. The API's own bodies nest three levels at most. */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether `text` opens more than `max` objects or arrays inside one another. Brackets inside strings do not count;
 * the text need not be valid JSON (the parser that runs next judges that).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
