// The demo catalogue seeded on first start (ODDEX_DEMO): 5 sports, 8 leagues, 44 fixtures over the next 14 days
// with moneyline, 1X2, spread and total markets (soccer quarter lines with their legs), main lines, and 4 games
// in play with live scores. Deterministic: the same seed and start time give the same catalogue and hashes.
import { Catalogue, type NewLiveScore } from './catalogue.js';
import { EventBus } from '../events.js';
import { MemoryCatalogueRecords } from './memory-records.js';
import { FixtureStatus, MarketType, type LiveScorePeriod } from './model.js';

/** mulberry32: a tiny deterministic PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEMO_SEED = 0x0dde5;

type SportKey = 'soccer' | 'basketball' | 'hockey' | 'football' | 'tennis';

interface DemoLeague {
  leagueId: number;
  sport: SportKey;
  label: string;
  fixtures: number;
  /** Fixtures of this league already in play at seed time (minutes since kick-off). */
  liveMinutes?: number;
  teams: string[];
}

const SPORTS: Record<SportKey, { sportId: number; label: string; kickOffHours: number[] }> = {
  basketball: { sportId: 1, label: 'Basketball', kickOffHours: [17, 19, 23, 1] },
  hockey: { sportId: 2, label: 'Ice Hockey', kickOffHours: [18, 23, 0] },
  football: { sportId: 4, label: 'American Football', kickOffHours: [17, 20, 0] },
  soccer: { sportId: 5, label: 'Soccer', kickOffHours: [12, 14, 16, 19] },
  tennis: { sportId: 6, label: 'Tennis', kickOffHours: [9, 11, 13, 15, 18] },
};

const LEAGUES: DemoLeague[] = [
  {
    leagueId: 101,
    sport: 'soccer',
    label: 'Premier Division',
    fixtures: 8,
    liveMinutes: 75,
    teams: ['Northbridge United', 'Castlemoor City', 'Redhaven Rovers', 'Ashford Athletic', 'Kingsport Wanderers', 'Millbrook Town', 'Eastleigh Albion', 'Harrowgate Forest'],
  },
  {
    leagueId: 102,
    sport: 'soccer',
    label: 'Liga Primera',
    fixtures: 6,
    teams: ['Real Costaverde', 'Atletico Montesol', 'Deportivo Sierra Alta', 'Valbruna CF', 'Union Puertollano', 'Sporting Almenar', 'CD Riberalta', 'Racing Castellmar'],
  },
  {
    leagueId: 103,
    sport: 'soccer',
    label: 'Serie Alpina',
    fixtures: 4,
    teams: ['AC Valdorno', 'Sporting Trevalle', 'US Montegrano', 'Fiorentia Lago', 'Atletico Brenna', 'SS Castelvetro'],
  },
  {
    leagueId: 201,
    sport: 'basketball',
    label: 'National Basketball Conference',
    fixtures: 8,
    liveMinutes: 70,
    teams: ['Bay City Comets', 'Lakeshore Lynx', 'Desert Vipers', 'Harbor Titans', 'Mountain Kings', 'Capital Hawks', 'River City Rhythm', 'Prairie Storm'],
  },
  {
    leagueId: 202,
    sport: 'basketball',
    label: 'Euro Hoops League',
    fixtures: 4,
    teams: ['BC Vardar Riga', 'Olimpia Santara', 'Partenope Napolis', 'KK Dunav', 'Hapoel Meridian', 'Baskonia Norte'],
  },
  {
    leagueId: 301,
    sport: 'hockey',
    label: 'North American Hockey League',
    fixtures: 5,
    liveMinutes: 40,
    teams: ['Glacier Bay Wolves', 'Iron Range Miners', 'Northern Lights', 'Port Royal Pilots', 'Maple Ridge Moose', 'Granite City Guardians'],
  },
  {
    leagueId: 401,
    sport: 'football',
    label: 'Gridiron Football League',
    fixtures: 4,
    teams: ['Timberline Lumberjacks', 'Coastal Marlins', 'Steel Valley Forge', 'Big Sky Rangers', 'Gulf Shore Pelicans', 'Heartland Harvesters'],
  },
  {
    leagueId: 501,
    sport: 'tennis',
    label: 'World Tennis Tour',
    fixtures: 5,
    liveMinutes: 50,
    teams: ['Lucas Moreau', 'Andrei Volkov', 'Mateo Ferreira', 'Kenji Watanabe', 'Elias Brandt', 'Tomas Ruiz', 'Oliver Hastings', 'Nikola Petrovic'],
  },
];

const HOUR = 3600;
const DAY = 86_400;

/**
 * Seeds an empty catalogue: built on a draft catalogue in memory (the same checks as the operator's requests), then
 * written at once, in one transaction.
 */
export async function seedDemoCatalogue(catalogue: Catalogue, nowMs: number): Promise<void> {
  const draftRecords = new MemoryCatalogueRecords();
  await buildDemoCatalogue(await Catalogue.open(draftRecords, new EventBus(), ''), nowMs);
  await catalogue.seed(draftRecords.written());
}

async function buildDemoCatalogue(catalogue: Catalogue, nowMs: number): Promise<void> {
  const rand = prng(DEMO_SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const halfLine = (min: number, max: number) => Math.floor(min + rand() * (max - min + 1)) + 0.5;
  const now = Math.floor(nowMs / 1000);
  const startOfDay = now - (now % DAY);
  const nowIso = new Date(nowMs).toISOString();
  let eventNumber = 1000;

  for (const s of Object.values(SPORTS)) await catalogue.createSport({ sportId: s.sportId, label: s.label });
  for (const league of LEAGUES) {
    const sport = SPORTS[league.sport];
    await catalogue.createLeague({ leagueId: league.leagueId, sportId: sport.sportId, label: league.label });
    const teamIds: number[] = [];
    for (const name of league.teams) teamIds.push((await catalogue.createTeam({ sportId: sport.sportId, name })).teamId);
    const pairs = roundRobin(teamIds);
    for (let i = 0; i < league.fixtures; i++) {
      const [teamOneId, teamTwoId] = pairs[i % pairs.length]!;
      const live = i === 0 && league.liveMinutes !== undefined;
      let gameTime: number;
      if (live) gameTime = now - (now % 300) - league.liveMinutes! * 60;
      else {
        gameTime = startOfDay + Math.floor(rand() * 14) * DAY + pick(sport.kickOffHours) * HOUR + pick([0, 1800]);
        if (gameTime < now + 30 * 60) gameTime += DAY;
      }
      const fixture = await catalogue.createFixture({
        exchangeEventId: `L${++eventNumber}`,
        leagueId: league.leagueId,
        teamOneId,
        teamTwoId,
        gameTime,
        status: live ? FixtureStatus.IN_PROGRESS : FixtureStatus.NOT_STARTED,
      });
      const liveEnabled = live || i % 2 === 0;
      const favourite = rand() < 0.5 ? -1 : 1;
      const add = (type: number, line?: number, mainLine = false) =>
        catalogue.createMarkets({ exchangeEventId: fixture.exchangeEventId, type, line, liveEnabled, mainLine });
      const lines = async (type: number, main: number, others: number[]) => {
        await add(type, main, true);
        for (const l of others) if (!catalogue.getMarketByIdentity(fixture.exchangeEventId, type, l)) await add(type, l);
      };
      switch (league.sport) {
        case 'soccer':
          await add(MarketType.ONE_X_TWO);
          await add(MarketType.MONEYLINE);
          await lines(MarketType.TOTALS, 2.5, [1.5, 3.5, 2.25, 2.75]);
          await lines(MarketType.SPREAD, favourite * 0.5, [favourite * 1.5, favourite * 0.75, favourite * 0.25, favourite * 1.25]);
          break;
        case 'basketball': {
          await add(MarketType.MONEYLINE_INCL_OVERTIME);
          const spread = halfLine(1, 9) * favourite;
          await lines(MarketType.SPREAD, spread, [spread - 2, spread + 2]);
          const total = halfLine(205, 234);
          await lines(MarketType.TOTALS, total, [total - 5, total + 5]);
          break;
        }
        case 'hockey':
          await add(MarketType.MONEYLINE);
          await add(MarketType.MONEYLINE_INCL_OVERTIME);
          await lines(MarketType.SPREAD_ALT, favourite * 1.5, [favourite * -1.5]);
          await lines(MarketType.TOTALS, 5.5, [4.5, 6.5]);
          break;
        case 'football': {
          await add(MarketType.MONEYLINE_INCL_OVERTIME);
          const spread = halfLine(1, 10) * favourite;
          await lines(MarketType.SPREAD, spread, [spread - 3, spread + 3]);
          const total = halfLine(38, 51);
          await lines(MarketType.TOTALS, total, [total - 3, total + 3]);
          break;
        }
        case 'tennis': {
          await add(MarketType.MONEYLINE);
          const spread = halfLine(2, 5) * favourite;
          await lines(MarketType.SPREAD_ALT, spread, [spread + favourite * -2]);
          await lines(MarketType.TOTALS, 22.5, [20.5, 24.5]);
          break;
        }
      }
      if (live) await catalogue.putLiveScore(liveScoreOf(league, fixture.exchangeEventId, rand), nowIso);
    }
  }
}

/** Round-robin pairings (circle method): every round pairs each team once, rounds follow each other. */
function roundRobin(teamIds: number[]): [number, number][] {
  const [fixed, ...rest] = teamIds;
  const pairs: [number, number][] = [];
  for (let round = 0; round < teamIds.length - 1; round++) {
    const ring = [fixed!, ...rest];
    for (let i = 0; i < ring.length / 2; i++) pairs.push([ring[i]!, ring[ring.length - 1 - i]!]);
    rest.unshift(rest.pop()!);
  }
  return pairs;
}

function liveScoreOf(league: DemoLeague, exchangeEventId: string, rand: () => number): NewLiveScore {
  const goals = (max: number) => Math.floor(rand() * (max + 1));
  const period = (label: string, one: number, two: number, isFinished: boolean): LiveScorePeriod => ({
    label,
    isFinished,
    teamOneScore: String(one),
    teamTwoScore: String(two),
  });
  const minutes = league.liveMinutes!;
  switch (league.sport) {
    case 'soccer': {
      const [a, b, c, d] = [goals(2), goals(2), goals(1), goals(1)];
      return {
        exchangeEventId,
        currentPeriod: '2nd Half',
        periodTime: `${minutes - 15}:00`,
        teamOneScore: a + c,
        teamTwoScore: b + d,
        periods: [period('1st Half', a, b, true), period('2nd Half', c, d, false)],
        extra: JSON.stringify([
          { Name: 'Corners', Value: `${goals(6)}-${goals(6)}` },
          { Name: 'YellowCards', Value: `${goals(3)}-${goals(3)}` },
        ]),
      };
    }
    case 'basketball': {
      const q = [0, 1, 2].map(() => [20 + goals(12), 20 + goals(12)] as const);
      return {
        exchangeEventId,
        currentPeriod: '3rd Quarter',
        periodTime: '04:12',
        teamOneScore: q.reduce((s, x) => s + x[0], 0),
        teamTwoScore: q.reduce((s, x) => s + x[1], 0),
        periods: q.map(([x, y], i) => period(`${['1st', '2nd', '3rd'][i]} Quarter`, x, y, i < 2)),
        extra: JSON.stringify([{ Name: 'Timeouts', Value: `${goals(3)}-${goals(3)}` }]),
      };
    }
    case 'hockey': {
      const [a, b, c, d] = [goals(2), goals(1), goals(1), goals(1)];
      return {
        exchangeEventId,
        currentPeriod: '2nd Period',
        periodTime: '12:30',
        teamOneScore: a + c,
        teamTwoScore: b + d,
        periods: [period('1st Period', a, b, true), period('2nd Period', c, d, false)],
        extra: JSON.stringify([{ Name: 'Shots', Value: `${15 + goals(10)}-${15 + goals(10)}` }]),
      };
    }
    default:
      return {
        exchangeEventId,
        currentPeriod: '2nd Set',
        periodTime: '',
        teamOneScore: 1,
        teamTwoScore: 0,
        periods: [period('1st Set', 6, 4, true), period('2nd Set', 2 + goals(3), 2 + goals(3), false)],
        extra: JSON.stringify([{ Name: 'Serve', Value: 'teamOne' }]),
      };
  }
}
