// Trader commands: markets to bets, signed with the wallet key (ODDEX_PRIVATE_KEY or a key file).
import { existsSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { formatUnits, generatePrivateKey, payoutFor, privateKeyAccount, remainingTakerSpace, takerOddsOf } from '@oddex/sdk';
import type { OddexClient, Order, Position, StatementEntry, Trade } from '@oddex/sdk';
import { amount, integer, outcomeSide, pct, percentOdds, TOKEN_DECIMALS, type CliContext } from '../context.js';
import { apiKeyFrom, UsageError } from '../credentials.js';
import { record, table, toJson } from '../output.js';

const units = (wei: bigint) => formatUnits(wei, TOKEN_DECIMALS);
const side = (one: boolean) => (one ? 'one' : 'two');

const orderRows = (orders: readonly Order[]) =>
  orders.map((o) => ({
    orderHash: o.orderHash,
    market: o.marketHash.slice(0, 10) + '…',
    makerOutcome: side(o.isMakerBettingOutcomeOne),
    makerOdds: pct(o.percentageOdds),
    size: units(o.totalBetSize),
    filled: units(o.fillAmount + o.pendingFillAmount),
    status: o.orderStatus,
  }));

const tradeRows = (trades: readonly Trade[]) =>
  trades.map((t) => ({
    fillHash: t.fillHash.slice(0, 12) + '…',
    market: t.marketHash.slice(0, 10) + '…',
    role: t.maker ? 'maker' : 'taker',
    outcome: side(t.bettingOutcomeOne),
    odds: pct(t.odds),
    stake: units(t.stake),
    status: t.tradeStatus,
    settled: t.settled,
    netReturn: t.settled ? t.netReturn : '',
  }));

export function registerTraderCommands(program: Command, cli: CliContext): void {
  program
    .command('wallet')
    .description('create a new wallet key file (mode 600) and print its address')
    .argument('<file>', 'where to write the private key')
    .action((file: string) => {
      const key = generatePrivateKey();
      if (existsSync(file)) throw new UsageError(`${file} already exists: a wallet file is never overwritten`);
      writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
      const address = privateKeyAccount(key).address;
      cli.print({ address, keyFile: file }, () => `${address}\n(key written to ${file}; use ODDEX_KEY_FILE=${file})`);
    });

  program
    .command('address')
    .description('the address of the configured wallet key')
    .action(() => {
      const address = cli.client(true).address;
      cli.print({ address }, () => address);
    });

  program
    .command('balance')
    .argument('[address]', 'default: the wallet')
    .description('free balance, escrow and open-order exposure')
    .action(async (address?: string) => {
      const b = await (address ? cli.client() : cli.client(true)).balance(address);
      cli.print(b, () => record({ address: b.address, balance: units(b.balance), escrowed: units(b.escrowed), openExposure: units(b.openExposure) }));
    });

  program
    .command('demo-funds')
    .argument('[address]', 'default: the wallet')
    .description('demo mode: test funds from the exchange itself, no admin token needed')
    .action(async (address?: string) => {
      const b = await (address ? cli.client() : cli.client(true)).requestDemoFunds(address);
      cli.print(b, () => `${b.address} now holds ${units(b.balance)} (escrowed ${units(b.escrowed)})`);
    });

  const keys = program.command('keys').description('your wallet\'s API keys (heartbeat and realtime, e.g. watch), signed with the wallet key: no operator needed');
  keys
    .command('create')
    .description('issue an API key for the wallet; it is shown once')
    .action(async () => {
      const k = await cli.client(true).createApiKey();
      cli.print(k, () => record({ id: k.id, address: k.address, apiKey: k.apiKey }) + '\n(store the key now: it is shown once; use it as ODDEX_API_KEY)');
    });
  keys
    .command('list')
    .description('the wallet\'s live API keys (ids and creation times; operator-issued ones too)')
    .action(async () => {
      const list = await cli.client(true).listApiKeys();
      cli.print(list, () => table(list.map((k) => ({ id: k.id, createdAt: k.createdAt }))));
    });
  keys
    .command('revoke')
    .argument('<id>', 'the key id printed by create or list')
    .description('revoke one of the wallet\'s API keys; its realtime sessions end at once')
    .action(async (id: string) => {
      const r = await cli.client(true).revokeApiKey(id);
      cli.print(r, () => `revoked ${r.id}`);
    });

  program
    .command('search')
    .argument('<query>', 'part of a team name (3 to 100 characters)')
    .description('active fixtures by team name')
    .action(async (query: string) => {
      const hits = await cli.client().search(query);
      cli.print(hits, () =>
        table(hits.map((h) => ({ eventId: h.eventId, game: `${h.teamOneName} v ${h.teamTwoName}`, league: h.leagueLabel, starts: new Date(h.gameTime * 1000).toISOString().slice(0, 16).replace('T', ' '), types: h.type.join(',') }))),
      );
    });

  program
    .command('book')
    .argument('<marketHash>')
    .description('the order book of a market, as a taker sees it')
    .action(async (marketHash: string) => {
      const client = cli.client();
      const [orders, market] = await Promise.all([client.allOrders({ marketHashes: [marketHash] }), knownMarket(client, marketHash)]);
      const book = { marketHash, outcomeOne: takerLevels(orders, true), outcomeTwo: takerLevels(orders, false) };
      cli.print(book, () => {
        const render = (name: string, ls: { takerOdds: bigint; availableStake: bigint }[]) =>
          `back ${name}\n` + table(ls.map((l) => ({ odds: pct(l.takerOdds), decimal: (1e20 / Number(l.takerOdds)).toFixed(3), available: units(l.availableStake) })));
        return [render(market?.outcomeOneName ?? 'outcome one', book.outcomeOne), render(market?.outcomeTwoName ?? 'outcome two', book.outcomeTwo)].join('\n\n');
      });
    });

  program
    .command('best')
    .argument('<marketHashes...>')
    .description('best maker odds per outcome')
    .action(async (marketHashes: string[]) => {
      const best = await cli.client().bestOdds({ marketHashes });
      cli.print(best, () =>
        table(best.map((b) => ({ marketHash: b.marketHash, makerOne: pct(b.outcomeOne?.percentageOdds), makerTwo: pct(b.outcomeTwo?.percentageOdds) }))),
      );
    });

  program
    .command('post')
    .description('post a maker order (signed by the wallet)')
    .requiredOption('--market <hash>', 'market hash')
    .requiredOption('--outcome <one|two>', 'the outcome the maker backs')
    .requiredOption('--odds <percent>', "the maker's odds in percent, rounded to the ladder (e.g. 52.5)")
    .requiredOption('--size <amount>', 'what the maker risks, in base-token units')
    .option('--expires-in <seconds>', 'lifetime (default one day)', integer)
    .action(async (o: { market: string; outcome: string; odds: string; size: string; expiresIn?: number }) => {
      const client = cli.client(true);
      const params = await client.params();
      const result = await client.postOrders([
        {
          marketHash: o.market,
          isMakerBettingOutcomeOne: outcomeSide(o.outcome),
          percentageOdds: percentOdds(o.odds, params.oddsLadderStepSize),
          totalBetSize: amount(o.size),
          ...(o.expiresIn !== undefined ? { expiresInSeconds: o.expiresIn } : {}),
        },
      ]);
      cli.print(result, () => table(result.orders.map((r) => ({ orderHash: r.orderHash, status: r.status }))));
      if (result.inserted !== result.orders.length) process.exitCode = 1;
    });

  program
    .command('fill')
    .description('bet as a taker against the book (signed by the wallet)')
    .requiredOption('--market <hash>', 'market hash')
    .requiredOption('--outcome <one|two>', 'the outcome you back')
    .requiredOption('--stake <amount>', 'stake in base-token units')
    .option('--odds <percent>', 'worst acceptable odds in percent (default: the best available)')
    .option('--slippage <percent>', 'tolerance below --odds, 0 to 100', integer, 0)
    .action(async (o: { market: string; outcome: string; stake: string; odds?: string; slippage: number }) => {
      const client = cli.client(true);
      const onOne = outcomeSide(o.outcome);
      let desiredOdds = o.odds === undefined ? undefined : percentOdds(o.odds);
      if (desiredOdds === undefined) {
        const [orders] = await Promise.all([client.allOrders({ marketHashes: [o.market] }), knownMarket(client, o.market)]);
        // The best level of the others' orders: the wallet's own never match it.
        const [best] = takerLevels(orders, onOne, client.address);
        if (best === undefined) throw new UsageError('no other wallet\'s orders to fill on that side; give --odds to try anyway');
        desiredOdds = best.takerOdds;
      }
      const stake = amount(o.stake);
      const fill = await client.fill({ marketHash: o.market, isTakerBettingOutcomeOne: onOne, stakeWei: stake, desiredOdds, oddsSlippage: o.slippage });
      cli.print(fill, () =>
        record({
          fillHash: fill.fillHash,
          filled: units(fill.totalFilled),
          averageOdds: pct(fill.averageOdds),
          partial: fill.isPartialFill,
          payoutIfWon: units(payoutFor(fill.totalFilled, fill.averageOdds)),
        }),
      );
    });

  program
    .command('cashout')
    .argument('<market>', 'market hash')
    .option('--bettor <address>', 'whose position (default: the wallet)')
    .option('--take', 'cash out: sign and post the quoted hedge as a fill whose cashOutTarget is the market')
    .option('--stake <amount>', 'with --take: this much of the quoted hedge stake (a partial cash out), in base-token units')
    .option(
      '--partial',
      'when the book covers only part of the hedge: quote (with --take, cash out) that part rather than fail with INSUFFICIENT_SPACE; the rest stays a position to cash out later',
    )
    .description('what your position in a market is worth now: the hedge against the book, its value and the cash-out fee; --take cashes it out')
    .action(async (market: string, o: { bettor?: string; take?: boolean; stake?: string; partial?: boolean }) => {
      if (o.stake !== undefined && !o.take) throw new UsageError('--stake goes with --take');
      const partial = o.partial === true;
      /** A partial quote's remainder: the hedge return it leaves uncovered. */
      const rest = (q: { partial?: true; uncoveredWei?: bigint }) => (q.partial ? { uncovered: `${units(q.uncoveredWei ?? 0n)} of the hedge's return (cash it out later)` } : {});
      if (o.take) {
        if (o.bettor) throw new UsageError('--take cashes out the wallet\'s own position: leave out --bettor');
        const r = await cli.client(true).cashOut(market, { partial, ...(o.stake === undefined ? {} : { stakeWei: amount(o.stake) }) });
        cli.print(r, () =>
          record({
            fillHash: r.fillHash,
            hedged: `${units(r.totalFilled)} of ${units(r.quote.stakeWei)} on ${side(r.quote.isTakerBettingOutcomeOne)}`,
            paidOnConfirm: r.totalFilled === r.quote.stakeWei ? units(r.quote.paidNow) : 'a share of the position (see positions)',
            ...rest(r.quote),
          }),
        );
        return;
      }
      const q = await (o.bettor ? cli.client() : cli.client(true)).cashoutQuote(market, o.bettor, { partial });
      cli.print(q, () =>
        record({
          marketHash: q.marketHash,
          hedge: `back ${side(q.isTakerBettingOutcomeOne)} with ${units(q.stakeWei)} at ${pct(q.desiredOdds)} or better${q.partial ? ' (the part the book covers)' : ''}`,
          worth: units(q.amount),
          fee: units(q.fee),
          paidNow: units(q.paidNow),
          ...rest(q),
        }),
      );
    });

  program
    .command('cancel')
    .description('cancel the wallet\'s orders: by hash, by event, or all')
    .argument('[orderHashes...]')
    .option('--event <id>', 'every order on markets of this event')
    .option('--all', 'every open order')
    .action(async (orderHashes: string[], o: { event?: string; all?: boolean }) => {
      const chosen = [orderHashes.length > 0, o.event !== undefined, Boolean(o.all)].filter(Boolean).length;
      if (chosen !== 1) throw new UsageError('give order hashes, or --event <id>, or --all');
      const client = cli.client(true);
      const r = o.all ? await client.cancelAll() : o.event ? await client.cancelEvent(o.event) : await client.cancelOrders(orderHashes);
      cli.print(r, () =>
        [`cancelled ${r.cancelledCount}`, ...r.notCancelled.map((n) => `not cancelled ${n.orderHash}: ${n.reason}`)].join('\n'),
      );
    });

  program
    .command('orders')
    .description("the wallet's open orders (or another maker's)")
    .option('--maker <address>')
    .option('--market <hash>')
    .action(async (o: { maker?: string; market?: string }) => {
      const client = o.maker ? cli.client() : cli.client(true);
      const orders = await client.allOrders({ maker: o.maker ?? client.address, ...(o.market ? { marketHashes: [o.market] } : {}) });
      cli.print(orders, () => table(orderRows(orders)));
    });

  program
    .command('trades')
    .description("the wallet's trades, newest first")
    .option('--bettor <address>')
    .option('--market <hash>')
    .option('--limit <n>', 'page size (max 300)', integer, 50)
    .action(async (o: { bettor?: string; market?: string; limit: number }) => {
      const client = o.bettor ? cli.client() : cli.client(true);
      const page = await client.trades({ bettor: o.bettor ?? client.address, pageSize: o.limit, ...(o.market ? { marketHashes: [o.market] } : {}) });
      cli.print(page.trades, () => table(tradeRows(page.trades)));
    });

  program
    .command('positions')
    .description('positions per market (GET /positions): stakes, escrow, refunds, profit settled or if each outcome wins')
    .option('--bettor <address>')
    .action(async (o: { bettor?: string }) => {
      const client = o.bettor ? cli.client() : cli.client(true);
      const bettor = o.bettor ?? client.address;
      const positions = await allPages((page) => client.positions({ bettor, page, perPage: 500 }).then((r) => ({ items: r.positions, count: r.count })));
      cli.print(positions, () => table(positions.map(positionRow)));
    });

  program
    .command('statement')
    .description('every movement of the wallet\'s funds with the balance after it (GET /account/statement), oldest first')
    .option('--bettor <address>')
    .option('--limit <n>', 'the latest n entries', integer, 100)
    .action(async (o: { bettor?: string; limit: number }) => {
      const client = o.bettor ? cli.client() : cli.client(true);
      const entries = await latestEntries(client, o.bettor ?? client.address, o.limit);
      cli.print(entries, () => table(entries.map(entryRow)));
    });

  program
    .command('watch')
    .argument('<channel>', 'e.g. best_odds:global, order_book:market_<hash>, recent_trades:global, active_orders:<address>')
    .description('print a realtime channel\'s publications as they come (needs ODDEX_API_KEY: `oddex keys create`)')
    .option('--count <n>', 'stop after this many publications', integer)
    .option('--timeout <seconds>', 'stop after this long', integer)
    .action(async (channel: string, o: { count?: number; timeout?: number }) => {
      if (!apiKeyFrom()) throw new UsageError('watch needs an API key: set ODDEX_API_KEY (create one with `oddex keys create`)');
      const client = cli.client();
      // A token first: a bad key or an unreachable exchange is an error here, not a silent reconnect loop.
      await client.realtimeToken();
      const realtime = client.realtime();
      let seen = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve, reject) => {
        timer = o.timeout ? setTimeout(resolve, o.timeout * 1000) : undefined;
        const sub = realtime.subscribe(channel, {
          onSubscribed: (ctx) => process.stderr.write(`subscribed to ${channel}${ctx.wasRecovering ? (ctx.recovered ? ' (recovered)' : ' (continuity lost)') : ''}\n`),
          onPublication: (data, ctx) => {
            process.stdout.write((cli.opts.json ? JSON.stringify({ offset: ctx.offset, data }) : `#${ctx.offset} ${toJson(data)}`) + '\n');
            if (o.count !== undefined && ++seen >= o.count) resolve();
          },
          onError: reject,
        });
        // The exchange refused the channel for good (unknown name, another account's private channel).
        sub.on('unsubscribed', (ctx) => reject(new UsageError(`${channel}: refused by the exchange (${ctx.reason}, code ${ctx.code})`)));
      }).finally(() => {
        // A refusal ends the command now: a pending --timeout would hold the process until it fired.
        clearTimeout(timer);
        realtime.close();
      });
    });
}

/** The market, or a usage error naming the hash the exchange does not know. */
async function knownMarket(client: OddexClient, marketHash: string) {
  const [market] = await client.findMarkets([marketHash]);
  if (!market) throw new UsageError(`no market ${marketHash} on this exchange`);
  return market;
}

/**
 * What a taker backing outcome one (or two) can take, by price level in matching order, from the makers on the other
 * outcome: free maker space as taker stake. Orders of `except` (the taker's own wallet) are left out.
 */
function takerLevels(orders: readonly Order[], takerOnOne: boolean, except?: string): { takerOdds: bigint; availableStake: bigint }[] {
  const byOdds = new Map<bigint, bigint>();
  for (const o of orders) {
    if (o.isMakerBettingOutcomeOne === takerOnOne || o.orderStatus !== 'ACTIVE' || o.maker === except) continue;
    const takerSpace = remainingTakerSpace(o.totalBetSize - o.fillAmount - o.pendingFillAmount, o.percentageOdds);
    if (takerSpace > 0n) byOdds.set(o.percentageOdds, (byOdds.get(o.percentageOdds) ?? 0n) + takerSpace);
  }
  return [...byOdds].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([makerOdds, stake]) => ({ takerOdds: takerOddsOf(makerOdds), availableStake: stake }));
}

/** Every page of a listing, in order. */
async function allPages<T>(read: (page: number) => Promise<{ items: T[]; count: number }>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 0; ; page++) {
    const r = await read(page);
    items.push(...r.items);
    if (r.items.length === 0 || items.length >= r.count) return items;
  }
}

/** The latest `limit` statement entries, oldest first. */
async function latestEntries(client: OddexClient, bettor: string, limit: number): Promise<StatementEntry[]> {
  const { entries } = await client.statement({ bettor, perPage: Math.min(limit, 500) });
  return entries.reverse();
}

function positionRow(p: Position) {
  const stakes = p.stakeOutcomeOne + p.stakeOutcomeTwo;
  return {
    market: p.marketHash.slice(0, 10) + '…',
    stakeOne: units(p.stakeOutcomeOne),
    stakeTwo: units(p.stakeOutcomeTwo),
    escrow: units(p.escrow),
    refunds: units(p.refunds),
    // Settled: the profit; open: the profit if each outcome wins.
    settledProfit: p.settledProfit !== undefined ? units(p.settledProfit) : '',
    ifOneWins: p.settled ? '' : units(p.payoutIfOutcomeOne - stakes),
    ifTwoWins: p.settled ? '' : units(p.payoutIfOutcomeTwo - stakes),
    pending: units(p.pendingStake),
  };
}

const entryRow = (e: StatementEntry) => ({
  time: e.time,
  kind: e.kind,
  amount: units(e.amount),
  balance: units(e.balance),
  market: e.marketHash ? e.marketHash.slice(0, 10) + '…' : '',
});
