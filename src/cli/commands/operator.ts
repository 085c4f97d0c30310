// Operator commands (admin token): faucet, API keys, fixtures and markets, results, accounts.
import type { Command } from 'commander';
import { formatUnits } from '@oddex/sdk';
import type { Market, Outcome } from '@oddex/sdk';
import { amount, integer, TOKEN_DECIMALS, type CliContext } from '../context.js';
import { UsageError } from '../credentials.js';
import { record, table } from '../output.js';

const units = (wei: bigint) => formatUnits(wei, TOKEN_DECIMALS);

export const marketRows = (markets: readonly Market[]) =>
  markets.map((m) => ({
    marketHash: m.marketHash,
    type: m.type,
    line: m.line,
    outcomeOne: m.outcomeOneName,
    outcomeTwo: m.outcomeTwoName,
    game: `${m.teamOneName} v ${m.teamTwoName}`,
    starts: new Date(m.gameTime * 1000).toISOString().slice(0, 16).replace('T', ' '),
    event: m.exchangeEventId,
    status: m.status,
  }));

export function registerOperatorCommands(program: Command, cli: CliContext): void {
  program
    .command('faucet')
    .description('operator: mint test funds to an address on the local ledger')
    .argument('<address>', 'wallet address')
    .argument('<amount>', 'amount in base-token units, e.g. 100')
    .action(async (address: string, raw: string) => {
      const b = await cli.admin().faucet(address, amount(raw));
      cli.print(b, () => `${b.address} now holds ${units(b.balance)} (escrowed ${units(b.escrowed)})`);
    });

  const keys = program.command('api-keys').description('operator: API keys (heartbeat and realtime)');
  keys
    .command('create')
    .argument('<address>', 'the address the key acts for')
    .description('issue an API key; it is shown once')
    .action(async (address: string) => {
      const k = await cli.admin().createApiKey(address);
      cli.print(k, () => record({ id: k.id, address: k.address, apiKey: k.apiKey }) + '\n(store the key now: it is shown once; use it as ODDEX_API_KEY)');
    });
  keys
    .command('revoke')
    .argument('<id>', 'the key id printed by create')
    .description('revoke an API key')
    .action(async (id: string) => {
      const r = await cli.admin().revokeApiKey(id);
      cli.print(r, () => `revoked ${r.id}`);
    });

  const fixtures = program.command('fixtures').description('fixtures (events) of a league');
  fixtures
    .command('list')
    .requiredOption('--league <id>', 'league id', integer)
    .description('active fixtures of a league')
    .action(async (o: { league: number }) => {
      const list = await cli.client().activeFixtures(o.league);
      cli.print(list, () => table(list.map((f) => ({ eventId: f.eventId, teamOne: f.participantOneName, teamTwo: f.participantTwoName, starts: f.startDate, status: f.status }))));
    });
  fixtures
    .command('create')
    .description('operator: create a fixture')
    .requiredOption('--league <id>', 'league id', integer)
    .requiredOption('--team-one <id>', 'team id', integer)
    .requiredOption('--team-two <id>', 'team id', integer)
    .requiredOption('--game-time <unix>', 'start, UNIX seconds', integer)
    .option('--event-id <id>', 'exchange event id (default generated)')
    .action(async (o: { league: number; teamOne: number; teamTwo: number; gameTime: number; eventId?: string }) => {
      const f = await cli.admin().createFixture({
        leagueId: o.league,
        teamOneId: o.teamOne,
        teamTwoId: o.teamTwo,
        gameTime: o.gameTime,
        ...(o.eventId ? { exchangeEventId: o.eventId } : {}),
      });
      cli.print(f, () => `created fixture ${f.eventId}: ${f.participantOneName} v ${f.participantTwoName} at ${f.startDate}`);
    });

  const markets = program.command('markets').description('markets: list active ones, or create (operator)');
  markets
    .command('list', { isDefault: true })
    .description('active markets')
    .option('--event <id>', 'only this event')
    .option('--league <id>', 'only this league', integer)
    .option('--sport <ids>', 'only these sport ids (comma separated)')
    .option('--main-line', 'only main lines of spreads and totals')
    .option('--live', 'only markets open in-play now')
    .option('--limit <n>', 'at most this many (default 50)', integer, 50)
    .action(async (o: { event?: string; league?: number; sport?: string; mainLine?: boolean; live?: boolean; limit: number }) => {
      const all = await cli.client().allActiveMarkets({
        ...(o.event ? { eventId: o.event } : {}),
        ...(o.league !== undefined ? { leagueId: o.league } : {}),
        ...(o.sport ? { sportIds: o.sport.split(',').map(integer) } : {}),
        ...(o.mainLine ? { onlyMainLine: true } : {}),
        ...(o.live ? { liveOnly: true } : {}),
      });
      const shown = all.slice(0, o.limit);
      cli.print(shown, () => table(marketRows(shown)) + (all.length > shown.length ? `\n(${all.length - shown.length} more; --limit)` : ''));
    });
  markets
    .command('create')
    .description('operator: create a market on a fixture')
    .requiredOption('--event <id>', 'exchange event id')
    .requiredOption('--type <n>', 'market type: 1, 2 (totals), 3 or 342 (spread), 52, 226 (moneyline)', integer)
    .option('--line <x>', 'spread or total line', parseFloat)
    .option('--selection <s>', 'for 1X2: teamOne, draw or teamTwo')
    .action(async (o: { event: string; type: number; line?: number; selection?: 'teamOne' | 'draw' | 'teamTwo' }) => {
      const created = await cli.admin().createMarkets({
        exchangeEventId: o.event,
        type: o.type,
        ...(o.line !== undefined ? { line: o.line } : {}),
        ...(o.selection ? { selection: o.selection } : {}),
      });
      cli.print(created, () => table(marketRows(created)));
    });

  const report = program.command('report').description('operator: report results (settles trades)');
  report
    .command('market')
    .argument('<marketHash>')
    .argument('<outcome>', '0 void, 1 outcome one, 2 outcome two')
    .description('report one market')
    .action(async (marketHash: string, raw: string) => {
      const outcome = integer(raw);
      if (outcome !== 0 && outcome !== 1 && outcome !== 2) throw new UsageError('outcome is 0, 1 or 2');
      const settled = await cli.admin().reportMarket(marketHash, outcome as Outcome);
      cli.print(settled, () => settled.map((m) => `reported ${m.marketHash}: outcome ${m.outcome}`).join('\n'));
    });
  report
    .command('fixture')
    .argument('<eventId>')
    .argument('<teamOneScore>')
    .argument('<teamTwoScore>')
    .description('report a final score: every market of the fixture settles by its rule')
    .action(async (eventId: string, one: string, two: string) => {
      const settled = await cli.admin().reportFixtureResult(eventId, integer(one), integer(two));
      cli.print(settled, () => table(settled.map((m) => ({ marketHash: m.marketHash, type: m.type, line: m.line, outcome: m.outcome }))));
    });

  const account = program.command('account').description('operator: an account\'s balances, exposure and restriction');
  account
    .command('view', { isDefault: true })
    .argument('<address>')
    .action(async (address: string) => {
      const a = await cli.admin().account(address);
      cli.print(a, () =>
        record({
          address: a.address,
          balance: units(a.balance),
          escrowed: units(a.escrowed),
          openExposure: units(a.openExposure),
          openOrders: a.openOrders,
          restricted: a.restricted,
          restrictedUntil: a.restrictedUntil,
        }),
      );
    });
  account
    .command('lift-restriction')
    .argument('<address>')
    .description('lift a posting restriction')
    .action(async (address: string) => {
      const a = await cli.admin().liftRestriction(address);
      cli.print(a, () => `${a.address}: restricted ${a.restricted}`);
    });
}
