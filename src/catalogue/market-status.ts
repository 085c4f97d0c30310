// Operator status changes of markets and fixtures. Each is a journaled engine command; its commit writes the
// catalogue's status (store/catalogue-status.ts) and the catalogue's memory follows the change records, so the
// engine's trading checks and the listed status are one record.
import type { Command } from '../engine/types.js';
import type { Catalogue, Fixture, MarketRecord } from './catalogue.js';
import { FixtureStatus, type FixtureStatusCode } from './model.js';
import { ExchangeError } from '../protocol/errors.js';

/** Where catalogue commands go to be journaled: the engine's writer (the trading service, as server.ts wires it). */
export interface CommandSink {
  submit(cmd: Command): Promise<unknown>;
}

/** What a status change reaches: the catalogue it reads, the engine it journals the change to, and the clock. */
export interface StatusDeps {
  catalogue: Catalogue;
  trading: CommandSink;
  now: () => number;
}
type Deps = StatusDeps;

/** Suspends or reopens a market; 409 MARKET_ALREADY_REPORTED once it is reported. */
export async function setMarketStatus(ctx: Deps, marketHash: string, status: 'ACTIVE' | 'SUSPENDED'): Promise<MarketRecord> {
  await ctx.catalogue.loadMarkets([marketHash]); // a settled one is refused as reported, not as unknown
  const market = ctx.catalogue.requireUnreported(marketHash);
  if (market.status === status) return market;
  await ctx.trading.submit({ kind: 'setMarketStatus', at: ctx.now(), marketHashes: [market.marketHash], status });
  return ctx.catalogue.requireMarket(market.marketHash);
}

/**
 * Sets a fixture's status. In play (status 2), its markets not enabled for in-play betting take no orders or fills,
 * and their resting orders are cancelled by the same command, as are the LAPSE orders of its other markets.
 * A fixture finished by its result stays finished (409 MARKET_ALREADY_REPORTED): in play again, it would list as
 * active and lapse orders on markets that can only settle on the score already reported.
 */
export async function setFixtureStatus(ctx: Deps, exchangeEventId: string, status: FixtureStatusCode): Promise<Fixture> {
  const fixture = ctx.catalogue.requireFixture(exchangeEventId);
  if (fixture.status === status) return fixture;
  if (fixture.status === FixtureStatus.FINISHED) {
    const reported = (await ctx.catalogue.marketsOfEvent(exchangeEventId)).find(
      (m) => m.status === 'SETTLED' && m.teamOneScore !== undefined && m.teamTwoScore !== undefined,
    );
    if (reported) {
      throw new ExchangeError(
        'MARKET_ALREADY_REPORTED',
        `${exchangeEventId} finished ${reported.teamOneScore}-${reported.teamTwoScore}: its status cannot change to ${status}`,
      );
    }
  }
  const open = ctx.catalogue.openMarketsOfEvent(exchangeEventId);
  await ctx.trading.submit({
    kind: 'setFixtureStatus',
    at: ctx.now(),
    exchangeEventId,
    status,
    inPlay: status === FixtureStatus.IN_PROGRESS,
    closedInPlay: open.filter((m) => !m.liveEnabled).map((m) => m.marketHash),
    // Always listed, even empty: the command says it applies order persistence, so its replay lapses the same orders.
    lapseInPlay: open.filter((m) => m.liveEnabled).map((m) => m.marketHash),
  });
  return ctx.catalogue.requireFixture(exchangeEventId);
}
