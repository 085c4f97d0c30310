// What the engine knows of a market's life besides its result: operator suspensions and which fixtures are in
// play. Both arrive as journaled commands, so trading checks and the catalogue's status follow one record.
import type { MarketRef } from './types.js';

export interface MarketLifeState {
  suspended: string[];
  inPlayEvents: string[];
}

export class MarketLife {
  private readonly suspended = new Set<string>();
  private readonly inPlayEvents = new Set<string>();

  static from(state: MarketLifeState | undefined): MarketLife {
    const life = new MarketLife();
    for (const h of state?.suspended ?? []) life.suspended.add(h);
    for (const e of state?.inPlayEvents ?? []) life.inPlayEvents.add(e);
    return life;
  }

  exportState(): MarketLifeState {
    return { suspended: [...this.suspended], inPlayEvents: [...this.inPlayEvents] };
  }

  /** Suspended, or closed while its fixture is in play (a market not enabled for in-play betting). */
  refuses(market: MarketRef): boolean {
    if (this.suspended.has(market.marketHash)) return true;
    return market.liveEnabled === false && this.inPlayEvents.has(market.exchangeEventId);
  }

  setSuspended(marketHash: string, suspended: boolean): void {
    if (suspended) this.suspended.add(marketHash);
    else this.suspended.delete(marketHash);
  }

  setInPlay(exchangeEventId: string, inPlay: boolean): void {
    if (inPlay) this.inPlayEvents.add(exchangeEventId);
    else this.inPlayEvents.delete(exchangeEventId);
  }

  /** A reported market's life is over: nothing about it stays in memory. */
  forget(marketHash: string): void {
    this.suspended.delete(marketHash);
  }

  size(): { suspended: number; inPlayEvents: number } {
    return { suspended: this.suspended.size, inPlayEvents: this.inPlayEvents.size };
  }
}
