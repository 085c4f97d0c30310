// Whether an order's free maker space can still be taken, as one comparison with a floor that depends on its odds
// only. The definition (engine.ts fillableTakerSpace) converts the free maker space F to taker space and back:
// floor(floor(F(S-p)/p) * p/(S-p)) > 0, with S the odds scale and p the maker odds (0 < p < S). That holds exactly
// when floor(F(S-p)/p) >= k = ceil((S-p)/p), i.e. when F(S-p) >= k*p, i.e. when F >= ceil(k*p/(S-p)): the floor.
// Each bigint operation allocates, and the check runs on every match and confirmation, so the floor of the last
// odds asked is kept: a fill and its confirmation ask for the same order's odds in turn, and a book has few odds.
import { ODDS_SCALE } from '../protocol/odds.js';

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

let lastOdds = -1n;
let lastFloor = 0n;

/** The least free maker space that still matches a taker wei at maker odds `p` (0 < p < ODDS_SCALE). */
export function makerSpaceFloor(p: bigint): bigint {
  if (p === lastOdds) return lastFloor;
  const k = ceilDiv(ODDS_SCALE - p, p);
  lastFloor = ceilDiv(k * p, ODDS_SCALE - p);
  lastOdds = p;
  return lastFloor;
}

/** Whether `freeMakerSpace` at maker odds `p` is more than dust: fillableTakerSpace(...) > 0n. */
export function hasTakeableSpace(freeMakerSpace: bigint, p: bigint): boolean {
  if (p <= 0n || p >= ODDS_SCALE) return false;
  return freeMakerSpace >= makerSpaceFloor(p);
}
