// Shared TypeBox schemas and parsers for wire values (hashes, addresses, comma lists, wei strings).
import { Type } from '@sinclair/typebox';
import { invalidField, type ErrorCode } from '../protocol/errors.js';

export const HASH_PATTERN = '^0x[0-9a-fA-F]{64}$';
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';
export const UINT_PATTERN = '^(0|[1-9][0-9]{0,77})$';

export const Hash = Type.String({ pattern: HASH_PATTERN });
export const Address = Type.String({ pattern: ADDRESS_PATTERN });
export const UintString = Type.String({ pattern: UINT_PATTERN });


/** Splits a comma list; rejects empty items, too many items, or items failing `valid`. */
export function parseCommaList(
  raw: string,
  field: string,
  opts: { max: number; errorCode?: ErrorCode; valid?: (item: string) => boolean },
): string[] {
  const items = raw.split(',').map((s) => s.trim());
  const code: ErrorCode = opts.errorCode ?? 'INVALID_PARAMETER';
  if (items.length === 0 || items.some((s) => s === '')) throw invalidField(field, 'minLength', `${field} must be a comma-separated list`, code);
  if (items.length > opts.max) throw invalidField(field, 'maxItems', `${field} takes at most ${opts.max} items`, code);
  if (opts.valid) {
    const bad = items.find((s) => !opts.valid!(s));
    if (bad !== undefined) throw invalidField(field, 'pattern', `${field} has an invalid item "${bad.slice(0, 80)}"`, code);
  }
  return items;
}

export const isHash = (s: string) => /^0x[0-9a-fA-F]{64}$/.test(s);

/** The most hashes a comma list of market or order hashes takes (`parseCommaList`'s `max`). */
export const MAX_HASHES = 100;
/**
 * A schema's cap on the raw text of a comma list that takes `count` hashes (66 characters each and the commas): room
 * for twice as many, so a list over the limit is refused for its count, with `parseCommaList`'s clearer message.
 */
export const hashListLength = (count: number) => 2 * count * 67;
export const isIntString = (s: string) => /^\d{1,15}$/.test(s);
