import { useSession } from '../session';

/** Switches every price on the page between decimal odds and implied probability. */
export function OddsToggle() {
  const { oddsFormat, setOddsFormat } = useSession();
  return (
    <div className="toggle" role="group" aria-label="Odds format">
      <button aria-pressed={oddsFormat === 'decimal'} onClick={() => setOddsFormat('decimal')}>
        Decimal
      </button>
      <button aria-pressed={oddsFormat === 'implied'} onClick={() => setOddsFormat('implied')}>
        Implied %
      </button>
    </div>
  );
}
