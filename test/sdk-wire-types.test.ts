// The SDK's records are the server's wire schemas (src/protocol/wire, the TypeBox schemas the routes answer with)
// with wei and odds as bigint. Checked by the type checker: `npm run typecheck` fails on this file when an SDK type
// and the schema disagree in a field's name, optionality or type (the run below only makes it a listed test).
// Each check puts the SDK record back on the wire (bigint as a decimal string) and compares it with the schema's
// Static type; where the SDK deliberately differs (a narrower literal type, a field older servers leave out), the
// difference is spelled out here.
import type { Static } from '@sinclair/typebox';
import { describe, expectTypeOf, it } from 'vitest';
import type * as Sdk from '@oddex/sdk';
import type { Position, StatementEntry } from '../src/protocol/wire/account.js';
import type { Account, ApiKeyCreated, OwnedApiKey } from '../src/protocol/wire/admin.js';
import type { Fixture, League, LiveScore, Market, MarketPage, ParlayLeg, SearchResult, Sport, Team } from '../src/protocol/wire/catalogue.js';
import type { Candle } from '../src/protocol/wire/history.js';
import type { Metadata } from '../src/protocol/wire/metadata.js';
import type { ParlayRequestBroadcast } from '../src/protocol/wire/realtime.js';
import type { ConsolidatedTrade, OrderTrade, RefundEvent, RefundsPage, Trade, TradesPage } from '../src/protocol/wire/trades.js';
import type { Balance, BestOdds, CancelResult, CashOutQuote, FillResult, Heartbeat, Order } from '../src/protocol/wire/trading.js';

/** An SDK value as the wire carries it: bigint as a decimal string, everything else as is (optionality kept). */
type OnWire<T> = T extends bigint
  ? string
  : T extends readonly (infer E)[]
    ? OnWire<E>[]
    : T extends object
      ? { [K in keyof T]: OnWire<T[K]> }
      : T;

/** The named fields of a record that also admits fields a newer server may add (the SDK's `Additive`). */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** W with the keys K optional (fields older servers leave out), as one object type. */
type Relaxed<W, K extends keyof W> = { [P in keyof W as P extends K ? never : P]: W[P] } & { [P in K]?: W[P] } extends infer R
  ? { [P in keyof R]: R[P] }
  : never;

describe('the SDK types derive from the wire schemas', () => {
  it('records without conversions are the schemas as they are', () => {
    expectTypeOf<Sdk.Sport>().toEqualTypeOf<Static<typeof Sport>>();
    expectTypeOf<Sdk.League>().toEqualTypeOf<Static<typeof League>>();
    expectTypeOf<Sdk.Team>().toEqualTypeOf<Static<typeof Team>>();
    expectTypeOf<Sdk.Fixture>().toEqualTypeOf<Static<typeof Fixture>>();
    expectTypeOf<Sdk.LiveScore>().toEqualTypeOf<Static<typeof LiveScore>>();
    expectTypeOf<Sdk.SearchResult>().toEqualTypeOf<Static<typeof SearchResult>>();
    expectTypeOf<Sdk.ParlayLeg>().toEqualTypeOf<Static<typeof ParlayLeg>>();
    expectTypeOf<Sdk.ParlayTerms>().toEqualTypeOf<NonNullable<Static<typeof Market>['parlay']>>();
    expectTypeOf<Sdk.ParlayRequest>().toEqualTypeOf<Static<typeof ParlayRequestBroadcast>>();
    expectTypeOf<Sdk.Heartbeat>().toEqualTypeOf<Static<typeof Heartbeat>>();
    expectTypeOf<Sdk.NewApiKey>().toEqualTypeOf<Static<typeof ApiKeyCreated>>();
    expectTypeOf<Sdk.ApiKeyInfo>().toEqualTypeOf<Static<typeof OwnedApiKey>>();
  });

  it('records with amounts are the schemas with bigint for the decimal strings', () => {
    expectTypeOf<OnWire<Sdk.Position>>().toEqualTypeOf<Static<typeof Position>>();
    expectTypeOf<OnWire<Sdk.StatementEntry>>().toEqualTypeOf<Static<typeof StatementEntry>>();
    expectTypeOf<OnWire<Sdk.Balance>>().toEqualTypeOf<Static<typeof Balance>>();
    expectTypeOf<OnWire<Sdk.AccountView>>().toEqualTypeOf<Static<typeof Account>>();
    expectTypeOf<OnWire<Sdk.Candle>>().toEqualTypeOf<Static<typeof Candle>>();
    expectTypeOf<OnWire<Sdk.FillResult>>().toEqualTypeOf<Static<typeof FillResult>>();
    expectTypeOf<OnWire<Sdk.CancelResult>>().toEqualTypeOf<Static<typeof CancelResult>>();
    expectTypeOf<OnWire<Sdk.CashOutQuote>>().toEqualTypeOf<Static<typeof CashOutQuote>>();
    expectTypeOf<OnWire<Sdk.BestOdds>>().toEqualTypeOf<Static<typeof BestOdds>['bestOdds'][number]>();
    expectTypeOf<OnWire<Sdk.RefundEvent>>().toEqualTypeOf<Static<typeof RefundEvent>>();
    expectTypeOf<OnWire<Sdk.RefundGroup>>().toEqualTypeOf<Static<typeof RefundsPage>['results'][number]>();
  });

  it('statuses the schema leaves as strings are the documented literals', () => {
    expectTypeOf<OnWire<Omit<Sdk.Order, 'orderStatus'>>>().toEqualTypeOf<Omit<Static<typeof Order>, 'orderStatus'>>();
    expectTypeOf<Sdk.Order['orderStatus']>().toExtend<Static<typeof Order>['orderStatus']>();
    expectTypeOf<OnWire<Omit<Known<Sdk.Trade>, 'tradeStatus'>>>().toEqualTypeOf<Omit<Static<typeof Trade>, 'tradeStatus'>>();
    expectTypeOf<OnWire<Omit<Known<Sdk.OrderTrade>, 'tradeStatus'>>>().toEqualTypeOf<Omit<Static<typeof OrderTrade>, 'tradeStatus'>>();
    expectTypeOf<Sdk.Trade['tradeStatus']>().toExtend<Static<typeof Trade>['tradeStatus']>();
    expectTypeOf<OnWire<Omit<Known<Sdk.ConsolidatedTrade>, 'tradeStatus'>>>().toEqualTypeOf<Omit<Static<typeof ConsolidatedTrade>, 'tradeStatus'>>();
    expectTypeOf<Sdk.ConsolidatedTrade['tradeStatus']>().toExtend<Static<typeof ConsolidatedTrade>['tradeStatus']>();
  });

  it('markets and metadata admit additive fields; pages hold the SDK records; metadata fields newer than some servers are optional', () => {
    expectTypeOf<Known<Sdk.Market>>().toEqualTypeOf<Static<typeof Market>>();
    expectTypeOf<OnWire<Omit<Sdk.MarketPage, 'markets'>>>().toEqualTypeOf<Omit<Static<typeof MarketPage>, 'markets'>>();
    expectTypeOf<Sdk.MarketPage['markets']>().toEqualTypeOf<Sdk.Market[]>();
    expectTypeOf<OnWire<Omit<Sdk.TradePage, 'trades'>>>().toEqualTypeOf<Omit<Static<typeof TradesPage>, 'trades'>>();
    expectTypeOf<Sdk.TradePage['trades']>().toEqualTypeOf<Sdk.Trade[]>();
    expectTypeOf<OnWire<Known<Sdk.Metadata>>>().toEqualTypeOf<Relaxed<Static<typeof Metadata>, 'feeAccount' | 'demoFunds' | 'bettingDelays'>>();
    expectTypeOf<Sdk.DemoFundsOffer>().toEqualTypeOf<NonNullable<Static<typeof Metadata>['demoFunds']>>();
  });
});
