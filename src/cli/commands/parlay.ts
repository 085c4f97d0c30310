// `oddex parlay request|offers|fill`: a parlay as a bettor places it. The request creates the parlay market and
// makers quote it unseen for the quote window; `offers` waits the window out and lists them, best first; `fill`
// takes the best (or a chosen) offer before the fill deadline.
import type { Command } from 'commander';
import { formatUnits, payoutFor, takerOddsOf, type Market, type Order, type OddexClient } from '@oddex/sdk';
import { amount, outcomeSide, pct, TOKEN_DECIMALS, type CliContext } from '../context.js';
import { UsageError } from '../credentials.js';
import { record, table } from '../output.js';

const units = (wei: bigint) => formatUnits(wei, TOKEN_DECIMALS);
const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

/** `<marketHash>:<one|two>`: a leg and the outcome backed on it. */
function parseLeg(raw: string): { marketHash: string; bettingOutcomeOne: boolean } {
  const [marketHash, outcome = ''] = raw.split(':');
  if (!/^0x[0-9a-fA-F]{64}$/.test(marketHash ?? '')) throw new UsageError(`leg "${raw}": give <marketHash>:<one|two>`);
  return { marketHash: marketHash!, bettingOutcomeOne: outcomeSide(outcome) };
}

/** The stake an offer takes from the bettor: its remaining maker stake at the bettor's odds. */
const bettorSpace = (o: Order) => ((o.totalBetSize - o.fillAmount - o.pendingFillAmount) * takerOddsOf(o.percentageOdds)) / o.percentageOdds;

const offerRows = (offers: readonly Order[]) =>
  offers.map((o) => ({
    orderHash: o.orderHash,
    odds: pct(takerOddsOf(o.percentageOdds)),
    decimal: (1e20 / Number(takerOddsOf(o.percentageOdds))).toFixed(3),
    available: units(bettorSpace(o)),
  }));

async function parlayMarket(client: OddexClient, marketHash: string): Promise<Market> {
  const [market] = await client.findMarkets([marketHash]);
  if (!market?.parlay) throw new UsageError(`${marketHash} is not a parlay market`);
  return market;
}

export function registerParlayCommands(program: Command, cli: CliContext): void {
  const parlay = program.command('parlay').description('parlays: request quotes on several legs, see the offers, fill one');

  parlay
    .command('request')
    .description('request quotes on a parlay of 2 to 10 legs (signed by the wallet); prints the parlay market')
    .argument('<legs...>', 'legs as <marketHash>:<one|two>, the outcome you back on each')
    .requiredOption('--stake <amount>', 'the stake you mean to bet, in base-token units')
    .action(async (legs: string[], o: { stake: string }) => {
      const market = await cli.client(true).requestParlay({ legs: legs.map(parseLeg), requestSize: amount(o.stake) });
      cli.print(market, () =>
        record({
          marketHash: market.marketHash,
          legs: (market.legs ?? []).map((l) => `${l.marketHash.slice(0, 10)}…:${l.bettingOutcomeOne ? 'one' : 'two'}`).join(' '),
          offersAt: iso(market.parlay?.quoteWindowEndsAt),
          fillBy: iso(market.parlay?.fillDeadline),
        }) + `\n(then: oddex parlay offers ${market.marketHash})`,
      );
    });

  parlay
    .command('offers')
    .description('wait for the quote window to close, then list the offers, best first')
    .argument('<marketHash>', 'the parlay market')
    .action(async (marketHash: string) => {
      const client = cli.client();
      const market = await parlayMarket(client, marketHash);
      const offers = await client.parlayOffers(market);
      const listed = offers.map((o) => ({ orderHash: o.orderHash, odds: takerOddsOf(o.percentageOdds), available: bettorSpace(o) }));
      cli.print({ marketHash, fillDeadline: market.parlay!.fillDeadline, offers: listed }, () =>
        offers.length === 0 ? 'no offers' : table(offerRows(offers)) + `\n(fill by ${iso(market.parlay!.fillDeadline)})`,
      );
    });

  parlay
    .command('fill')
    .description('back the parlay (every leg wins) at the best offer, or at a chosen one\'s odds')
    .argument('<marketHash>', 'the parlay market')
    .requiredOption('--stake <amount>', 'stake in base-token units')
    .option('--order <orderHash>', 'the offer whose odds you accept (default: the best)')
    .action(async (marketHash: string, o: { stake: string; order?: string }) => {
      const client = cli.client(true);
      const market = await parlayMarket(client, marketHash);
      const offers = await client.parlayOffers(market);
      const chosen = o.order === undefined ? offers[0] : offers.find((x) => x.orderHash.toLowerCase() === o.order!.toLowerCase());
      if (!chosen) throw new UsageError(o.order === undefined ? 'no offers on this parlay' : `no offer ${o.order} on this parlay`);
      const fill = await client.fill({ marketHash, isTakerBettingOutcomeOne: true, stakeWei: amount(o.stake), desiredOdds: takerOddsOf(chosen.percentageOdds) });
      cli.print(fill, () =>
        record({ fillHash: fill.fillHash, filled: units(fill.totalFilled), averageOdds: pct(fill.averageOdds), payoutIfWon: units(payoutFor(fill.totalFilled, fill.averageOdds)) }),
      );
    });
}
