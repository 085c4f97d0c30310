import type { Market } from '../api/types';

/** Chooses outcome one or two of a market, by their names. */
export function OutcomeToggle({ market, outcomeOne, onChange, label }: { market: Market; outcomeOne: boolean; onChange(outcomeOne: boolean): void; label: string }) {
  return (
    <div className="toggle" role="group" aria-label={label}>
      <button aria-pressed={outcomeOne} onClick={() => onChange(true)}>
        {market.outcomeOneName}
      </button>
      <button aria-pressed={!outcomeOne} onClick={() => onChange(false)}>
        {market.outcomeTwoName}
      </button>
    </div>
  );
}
