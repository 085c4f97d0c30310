// A fixture's live state, the same wherever it is shown: the in-play badge, the score and the period.
import type { LiveScore } from '../api/types';
import { IN_PLAY } from '../realtime/fixture-live';

const pair = (one: number | string, two: number | string) => `${one}–${two}`;

/** Nothing for a fixture that is neither in play nor scored; `periods` adds the score of each period. */
export function LiveState({ status, score, periods = false }: { status: number | undefined; score: LiveScore | undefined; periods?: boolean }) {
  const inPlay = status === IN_PLAY;
  if (!inPlay && !score) return null;
  const when = score ? [score.currentPeriod, score.periodTime].filter((t) => t.trim() !== '').join(' ') : '';
  return (
    <span className="live-state" aria-label="Live state" data-in-play={inPlay}>
      {inPlay && <span className="in-play">In play</span>}
      {score && (
        <>
          <strong className="score" data-score={`${score.teamOneScore}-${score.teamTwoScore}`}>
            {pair(score.teamOneScore, score.teamTwoScore)}
          </strong>
          {when && <span className="period">{when}</span>}
          {periods && score.periods.length > 0 && (
            <span className="muted small periods">{score.periods.map((p) => `${p.label} ${pair(p.teamOneScore, p.teamTwoScore)}`).join(' · ')}</span>
          )}
        </>
      )}
    </span>
  );
}
