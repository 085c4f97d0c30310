// What the read side keeps of an account's restriction, from its restrictionChanged records (both stores).
import type { ChangeOf } from '../engine/changes.js';
import type { AccountRestriction } from '../engine/types.js';

/** An account's restriction as recorded, or its removal (lifted, or never restricted and no shortfalls left). */
export type RestrictionRecord = AccountRestriction | { address: string; lifted: true };

/**
 * What a change record leaves of an account's restriction: a lift (no shortfalls, no restriction) removes it. A
 * record journaled before shortfalls were recorded carries none: it only sets or lifts the restriction.
 */
export function restrictionOfChange(c: ChangeOf<'restrictionChanged'>): RestrictionRecord {
  const shortfalls = c.shortfalls ?? [];
  if (c.restrictedUntil === null && shortfalls.length === 0) return { address: c.address, lifted: true };
  return { address: c.address, restrictedUntil: c.restrictedUntil, shortfalls: [...shortfalls] };
}
