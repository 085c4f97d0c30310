// Sports, leagues and fixtures, with a search over team names.
import { useEffect, useState, type KeyboardEvent } from 'react';
import { exchange } from '../api/exchange';
import type { Fixture, SearchResult } from '../api/types';
import { LiveState } from '../components/live-state';
import { Empty, ErrorBox, Loading, useLoad } from '../components/status';
import { gameTimeText } from '../format';
import { isActiveFixture, useLeagueFixtures, useLiveScores } from '../realtime/fixture-live';
import { linkTo } from '../route';
import { useSession } from '../session';

function Search() {
  const [query, setQuery] = useState('');
  const q = query.trim();
  // Answers are kept with the query they answer, so a stale answer is never shown for a newer query.
  const [answer, setAnswer] = useState<{ query: string; hits?: SearchResult[]; error?: unknown }>({ query: '' });
  const hits = answer.query === q ? answer.hits : undefined;
  const error = answer.query === q ? answer.error : undefined;
  useEffect(() => {
    if (q.length < 3) return;
    let live = true;
    const timer = setTimeout(() => {
      exchange.search(q).then(
        (h) => live && setAnswer({ query: q, hits: h }),
        (e: unknown) => live && setAnswer({ query: q, error: e }),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [q]);
  return (
    <section className="card">
      <label className="search">
        <span>Find a team</span>
        <input type="search" placeholder="at least 3 letters, e.g. atletico" value={query} onChange={(e) => setQuery(e.target.value)} aria-label="Search fixtures" />
      </label>
      <ErrorBox error={error} />
      {hits && hits.length === 0 && <Empty>No fixture matches “{q}”.</Empty>}
      {hits && hits.length > 0 && (
        <ul className="list" aria-label="Search results">
          {hits.map((h) => (
            <li key={h.eventId}>
              <a href={linkTo.fixture(h.eventId)} className="row-link">
                <span>
                  {h.teamOneName} v {h.teamTwoName}
                </span>
                <span className="muted">
                  {h.leagueLabel} · {gameTimeText(h.gameTime)}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const byStart = (a: Fixture, b: Fixture) => Date.parse(a.startDate) - Date.parse(b.startDate) || a.eventId.localeCompare(b.eventId);

/** A league's active fixtures, kept live: new ones appear, finished ones leave, in-play ones show their score. */
function LeagueFixtures({ leagueId }: { leagueId: number }) {
  const { realtime } = useSession();
  const fixtures = useLeagueFixtures(realtime, leagueId);
  const list = [...(fixtures.records?.values() ?? [])].filter(isActiveFixture).sort(byStart);
  const scores = useLiveScores(realtime, list.map((f) => f.eventId));
  if (!fixtures.records) return fixtures.error ? <ErrorBox error={fixtures.error} /> : <Loading what="fixtures" />;
  if (list.length === 0) return <Empty>No active fixture in this league.</Empty>;
  return (
    <ul className="list">
      {list.map((f) => (
        <li key={f.eventId}>
          <a href={linkTo.fixture(f.eventId)} className="row-link">
            <span>
              {f.participantOneName} v {f.participantTwoName} <LiveState status={f.status} score={scores.get(f.eventId)} />
            </span>
            <span className="muted">{gameTimeText(Date.parse(f.startDate) / 1000)}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

/** Arrow keys, Home and End move between the sport tabs (the tab list is one stop for Tab), as a tab list does. */
function moveTab(e: KeyboardEvent<HTMLDivElement>, sports: { sportId: number }[], shown: number | undefined, select: (id: number) => void) {
  const at = sports.findIndex((s) => s.sportId === shown);
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: sports.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  const next = sports[(to + sports.length) % sports.length]!;
  select(next.sportId);
  document.getElementById(`sport-tab-${next.sportId}`)?.focus();
}

export function HomePage() {
  const sports = useLoad(() => exchange.sports(), 'sports');
  const leagues = useLoad(() => exchange.leagues(), 'leagues');
  const [sportId, setSportId] = useState<number>();
  const [openLeague, setOpenLeague] = useState<number>();
  const shownSport = sportId ?? sports.data?.[0]?.sportId;
  const sportLeagues = (leagues.data ?? []).filter((l) => l.sportId === shownSport);

  return (
    <>
      {/* The page's heading for screen readers and outlines; the cards below carry the visible ones. */}
      <h1 className="sr-only">Markets</h1>
      <Search />
      <section className="card">
        <h2>Sports</h2>
        <ErrorBox error={sports.error ?? leagues.error} />
        {!sports.data ? (
          <Loading what="sports" />
        ) : sports.data.length === 0 ? (
          <Empty>No sport is listed yet. An operator adds them in the console.</Empty>
        ) : (
          <div className="tabs" role="tablist" aria-label="Sports" onKeyDown={(e) => moveTab(e, sports.data!, shownSport, setSportId)}>
            {sports.data.map((s) => {
              const selected = s.sportId === shownSport;
              return (
                <button
                  key={s.sportId}
                  id={`sport-tab-${s.sportId}`}
                  role="tab"
                  aria-selected={selected}
                  aria-controls="sport-panel"
                  tabIndex={selected ? 0 : -1}
                  onClick={() => setSportId(s.sportId)}
                >
                  {s.label}
                </button>
              );
            })}
          </div>
        )}
        <div id="sport-panel" role="tabpanel" aria-labelledby={shownSport === undefined ? undefined : `sport-tab-${shownSport}`}>
          {leagues.data && sportLeagues.length === 0 && <Empty>No active league in this sport.</Empty>}
          {sportLeagues.map((l) => (
            <details key={l.leagueId} open={openLeague === l.leagueId} onToggle={(e) => (e.currentTarget.open ? setOpenLeague(l.leagueId) : undefined)}>
              <summary>{l.label}</summary>
              {openLeague === l.leagueId && <LeagueFixtures leagueId={l.leagueId} />}
            </details>
          ))}
        </div>
      </section>
    </>
  );
}
