// A quarter-line parent's outcome from its legs': pure, shared by the catalogue and the consolidated read model.
import type { Outcome } from './types.js';

/**
 * A quarter-line parent's own outcome (shown by /markets/find) from its legs' outcomes: the legs agree, or one
 * pushes and the other decides (a half win or half loss counts as that side). Legs that contradict each other
 * (only possible when reported by hand) make the parent void. Money always settles per leg, never on this.
 */
export function quarterLineOutcome(lowerLeg: Outcome, higherLeg: Outcome): Outcome {
  if (lowerLeg === higherLeg) return lowerLeg;
  if (lowerLeg === 0) return higherLeg;
  if (higherLeg === 0) return lowerLeg;
  return 0;
}
