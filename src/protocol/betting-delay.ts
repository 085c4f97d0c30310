// How long a bet waits before it is matched: one rule for the exchange (POST /orders/fill/v2) and for clients that
// read the figures from GET /metadata's bettingDelays.

export interface BettingDelays {
  preGameMs: number;
  /** In play, where neither the league nor the sport has a figure of its own. */
  inPlayMs: number;
  /** In-play delay per sport label (lower case), e.g. soccer. */
  inPlayBySportMs: Record<string, number>;
  /** In-play delay per league id; wins over the sport's. */
  inPlayByLeagueMs: Record<string, number>;
}

/** Before kick-off the pre-game delay; in play the league's, else the sport's, else the default. */
export function bettingDelayFor(delays: BettingDelays, market: { leagueId: number; sportLabel: string }, inPlay: boolean): number {
  if (!inPlay) return delays.preGameMs;
  return delays.inPlayByLeagueMs[String(market.leagueId)] ?? delays.inPlayBySportMs[market.sportLabel.toLowerCase()] ?? delays.inPlayMs;
}
