// The operator console: behind the admin token (asked once per browser session). Fixtures and markets,
// results and settlement, live scores, accounts, API keys and the faucet, fee revenue.
import { useState, type FormEvent, type ReactNode } from 'react';
import { admin, adminToken } from '../api/admin';
import { exchange } from '../api/exchange';
import type { Fixture, Market } from '../api/types';
import { Empty, ErrorBox, Loading, useLoad } from '../components/status';
import { gameTimeText, marketTypeName, money, parseAmount } from '../format';
import { linkTo } from '../route';

const FIXTURE_STATUS: Record<number, string> = {
  1: 'not started',
  2: 'in progress',
  3: 'finished',
  4: 'cancelled',
  5: 'postponed',
  6: 'interrupted',
  7: 'abandoned',
  8: 'coverage lost',
  9: 'about to start',
};

/** Runs an operator action and shows its outcome (or its error with errorCode) in words. */
function useAction() {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<ReactNode>();
  const [error, setError] = useState<unknown>();
  const run = async (action: () => Promise<ReactNode>) => {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      setMessage(await action());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const feedback = (
    <>
      {message && (
        <div className="notice" role="status">
          {message}
        </div>
      )}
      <ErrorBox error={error} />
    </>
  );
  return { busy, run, feedback };
}

const submit = (fn: () => void) => (e: FormEvent) => {
  e.preventDefault();
  fn();
};

function TokenGate({ onEnter }: { onEnter(): void }) {
  const [token, setToken] = useState('');
  const { busy, run, feedback } = useAction();
  const check = () =>
    run(async () => {
      adminToken.set(token.trim());
      try {
        // Any admin read proves the token; the zero address always has an account view.
        await admin.account('0x0000000000000000000000000000000000000000');
      } catch (err) {
        adminToken.clear();
        throw err;
      }
      onEnter();
      return 'Signed in.';
    });
  return (
    <section className="card">
      <h1>Operator console</h1>
      <p>
        Enter the exchange&apos;s admin token. The exchange generates it at its first start and keeps it in <code>admin-token</code> in its data dir (<code>data/admin-token</code> by default); the log names the file, never the token. It is remembered until this browser tab is closed.
      </p>
      <form onSubmit={submit(() => void check())}>
        <label>
          Admin token
          <input type="password" value={token} onChange={(e) => setToken(e.target.value)} aria-label="Admin token" autoComplete="off" />
        </label>
        <button className="primary" disabled={busy || token.trim() === ''}>
          Open console
        </button>
      </form>
      {feedback}
    </section>
  );
}

function MarketRow({ market, onChanged }: { market: Market; onChanged(): void }) {
  const { busy, run, feedback } = useAction();
  const act = (fn: () => Promise<unknown>, words: string) =>
    run(async () => {
      await fn();
      onChanged();
      return words;
    });
  return (
    <li data-console-market={market.marketHash}>
      <a href={linkTo.market(market.marketHash)}>
        {market.outcomeOneName} / {market.outcomeTwoName}
      </a>{' '}
      <span className="tag">{market.status}</span>
      {market.mainLine && <span className="tag">main line</span>}
      <div className="actions">
        {market.status === 'ACTIVE' ? (
          <button disabled={busy} onClick={() => void act(() => admin.setMarketStatus(market.marketHash, 'SUSPENDED'), 'Market suspended.')}>
            Suspend
          </button>
        ) : (
          <button disabled={busy} onClick={() => void act(() => admin.setMarketStatus(market.marketHash, 'ACTIVE'), 'Market active.')}>
            Activate
          </button>
        )}
        {market.line !== undefined && !market.mainLine && (
          <button disabled={busy} onClick={() => void act(() => admin.setMainLine(market.marketHash), 'Main line set.')}>
            Make main line
          </button>
        )}
        <button disabled={busy} onClick={() => void act(() => admin.reportMarket(market.marketHash, 1), `Reported: ${market.outcomeOneName}.`)}>
          Report 1
        </button>
        <button disabled={busy} onClick={() => void act(() => admin.reportMarket(market.marketHash, 2), `Reported: ${market.outcomeTwoName}.`)}>
          Report 2
        </button>
        <button disabled={busy} onClick={() => void act(() => admin.reportMarket(market.marketHash, 0), 'Reported void.')}>
          Void
        </button>
      </div>
      {feedback}
    </li>
  );
}

function FixtureAdmin({ fixture }: { fixture: Fixture }) {
  const markets = useLoad(() => exchange.marketsOfEvent(fixture.eventId), fixture.eventId);
  const [scores, setScores] = useState({ one: '', two: '' });
  const [status, setStatus] = useState(fixture.status);
  const [settled, setSettled] = useState<Market[]>();
  const [newMarket, setNewMarket] = useState({ type: '52', line: '' });
  const { busy, run, feedback } = useAction();
  const score = (s: string) => (/^\d+$/.test(s) ? Number(s) : undefined);

  const report = () =>
    run(async () => {
      const one = score(scores.one);
      const two = score(scores.two);
      if (one === undefined || two === undefined) throw new Error('both scores must be whole numbers');
      const result = await admin.reportResult(fixture.eventId, one, two);
      setSettled(result);
      markets.reload();
      return `Result ${one}-${two} reported: ${result.length} market(s) settled.`;
    });
  const live = () =>
    run(async () => {
      const one = score(scores.one) ?? 0;
      const two = score(scores.two) ?? 0;
      await admin.postLiveScore({ exchangeEventId: fixture.eventId, currentPeriod: 'live', periodTime: new Date().toISOString().slice(11, 16), teamOneScore: one, teamTwoScore: two, periods: [] });
      return `Live score ${one}-${two} published.`;
    });
  const changeStatus = () =>
    run(async () => {
      await admin.setFixtureStatus(fixture.eventId, status);
      return `Fixture is now ${FIXTURE_STATUS[status]}.`;
    });
  const addMarket = () =>
    run(async () => {
      const line = newMarket.line.trim() === '' ? undefined : Number(newMarket.line);
      const created = await admin.createMarket({ exchangeEventId: fixture.eventId, type: Number(newMarket.type), ...(line !== undefined ? { line } : {}), ...(newMarket.type === '1' ? { selection: 'teamOne' as const } : {}) });
      markets.reload();
      return `${created.length} market(s) created.`;
    });

  return (
    <div className="fixture-admin" data-console-fixture={fixture.eventId}>
      <form className="inline" onSubmit={submit(() => void report())}>
        <input aria-label="Team one score" placeholder={fixture.participantOneName} value={scores.one} onChange={(e) => setScores({ ...scores, one: e.target.value })} inputMode="numeric" />
        <input aria-label="Team two score" placeholder={fixture.participantTwoName} value={scores.two} onChange={(e) => setScores({ ...scores, two: e.target.value })} inputMode="numeric" />
        <button className="primary" disabled={busy}>
          Report result
        </button>
        <button type="button" disabled={busy} onClick={() => void live()}>
          Publish live score
        </button>
      </form>
      <form className="inline" onSubmit={submit(() => void changeStatus())}>
        <select aria-label="Fixture status" value={status} onChange={(e) => setStatus(Number(e.target.value))}>
          {Object.entries(FIXTURE_STATUS).map(([code, words]) => (
            <option key={code} value={code}>
              {code} {words}
            </option>
          ))}
        </select>
        <button disabled={busy}>Set status</button>
      </form>
      <form className="inline" onSubmit={submit(() => void addMarket())}>
        <select aria-label="Market type" value={newMarket.type} onChange={(e) => setNewMarket({ ...newMarket, type: e.target.value })}>
          {[52, 226, 1, 3, 2].map((t) => (
            <option key={t} value={t}>
              {marketTypeName(t)}
            </option>
          ))}
        </select>
        <input aria-label="Line" placeholder="line (spread, totals)" value={newMarket.line} onChange={(e) => setNewMarket({ ...newMarket, line: e.target.value })} />
        <button disabled={busy}>Create market</button>
      </form>
      {feedback}
      {settled && (
        <ul className="list" aria-label="Settled markets">
          {settled.map((m) => (
            <li key={m.marketHash}>
              {m.outcomeOneName} / {m.outcomeTwoName}: outcome {m.outcome}
            </li>
          ))}
        </ul>
      )}
      <h4>Markets</h4>
      {!markets.data ? <Loading what="markets" /> : markets.data.length === 0 ? <Empty>No active market.</Empty> : <ul className="list">{markets.data.map((m) => <MarketRow key={m.marketHash} market={m} onChanged={markets.reload} />)}</ul>}
    </div>
  );
}

function FixturesPanel() {
  const leagues = useLoad(() => exchange.leagues(), 'once');
  const [leagueId, setLeagueId] = useState<number>();
  const shown = leagueId ?? leagues.data?.[0]?.leagueId;
  const league = leagues.data?.find((l) => l.leagueId === shown);
  const fixtures = useLoad(() => (shown === undefined ? Promise.resolve([]) : exchange.fixtures(shown)), String(shown));
  const teams = useLoad(() => (league ? exchange.teams(league.sportId) : Promise.resolve([])), String(league?.sportId));
  const [open, setOpen] = useState<string>();
  const [draft, setDraft] = useState({ one: '', two: '', hours: '24' });
  const { busy, run, feedback } = useAction();

  const create = () =>
    run(async () => {
      if (shown === undefined) throw new Error('choose a league first');
      const f = await admin.createFixture({ leagueId: shown, teamOneId: Number(draft.one), teamTwoId: Number(draft.two), gameTime: Math.floor(Date.now() / 1000) + Number(draft.hours) * 3600 });
      fixtures.reload();
      return `Fixture ${f.eventId} created.`;
    });

  return (
    <section className="card" aria-label="Fixtures and markets">
      <h2>Fixtures and markets</h2>
      <ErrorBox error={leagues.error ?? fixtures.error} />
      <label>
        League
        <select value={shown ?? ''} onChange={(e) => setLeagueId(Number(e.target.value))} aria-label="League">
          {(leagues.data ?? []).map((l) => (
            <option key={l.leagueId} value={l.leagueId}>
              {l.label}
            </option>
          ))}
        </select>
      </label>
      <form className="inline" onSubmit={submit(() => void create())}>
        {(['one', 'two'] as const).map((side) => (
          <select key={side} aria-label={`Team ${side}`} value={draft[side]} onChange={(e) => setDraft({ ...draft, [side]: e.target.value })}>
            <option value="">team {side}</option>
            {(teams.data ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        ))}
        <input aria-label="Starts in hours" value={draft.hours} onChange={(e) => setDraft({ ...draft, hours: e.target.value })} inputMode="numeric" />
        <button disabled={busy || !draft.one || !draft.two}>Create fixture</button>
      </form>
      {feedback}
      {!fixtures.data ? (
        <Loading what="fixtures" />
      ) : fixtures.data.length === 0 ? (
        <Empty>No active fixture in this league.</Empty>
      ) : (
        fixtures.data.map((f) => (
          <details key={f.eventId} open={open === f.eventId} onToggle={(e) => (e.currentTarget.open ? setOpen(f.eventId) : undefined)}>
            <summary>
              {f.participantOneName} v {f.participantTwoName} <span className="muted">· {gameTimeText(Date.parse(f.startDate) / 1000)} · {FIXTURE_STATUS[f.status]}</span>
            </summary>
            {open === f.eventId && <FixtureAdmin fixture={f} />}
          </details>
        ))
      )}
    </section>
  );
}

function AccountsPanel() {
  const [address, setAddress] = useState('');
  const [amount, setAmount] = useState('1000');
  const [keyId, setKeyId] = useState('');
  const { busy, run, feedback } = useAction();
  const valid = /^0x[0-9a-fA-F]{40}$/.test(address.trim());
  const a = address.trim();

  const view = () =>
    run(async () => {
      const v = await admin.account(a);
      return (
        <dl className="facts">
          <dt>Balance</dt>
          <dd>{money(v.balance)}</dd>
          <dt>Escrow</dt>
          <dd>{money(v.escrowed)}</dd>
          <dt>Open-order exposure</dt>
          <dd>{money(v.openExposure)}</dd>
          <dt>Open orders</dt>
          <dd>{v.openOrders}</dd>
          <dt>Restriction</dt>
          <dd>{v.restricted ? `restricted until ${new Date(v.restrictedUntil ?? '').toLocaleString()}` : 'none'} ({v.recentShortfalls.length} recent shortfalls)</dd>
        </dl>
      );
    });

  return (
    <section className="card" aria-label="Accounts">
      <h2>Accounts, faucet and API keys</h2>
      <label>
        Address
        <input value={address} onChange={(e) => setAddress(e.target.value)} placeholder="0x…" aria-label="Account address" />
      </label>
      <div className="actions">
        <button disabled={busy || !valid} onClick={() => void view()}>
          View account
        </button>
        <button disabled={busy || !valid} onClick={() => void run(async () => (await admin.liftRestriction(a), 'Restriction lifted.'))}>
          Lift restriction
        </button>
        <button disabled={busy || !valid} onClick={() => void run(async () => { const k = await admin.issueApiKey(a); return <>API key <code data-api-key>{k.apiKey}</code> (id <code>{k.id}</code>) issued. It is shown only once.</>; })}>
          Issue API key
        </button>
      </div>
      <form className="inline" onSubmit={submit(() => void run(async () => { const wei = parseAmount(amount); if (wei === undefined) throw new Error('the amount must be a positive number of USDC'); await admin.faucet(a, wei); return `Sent ${money(wei)} to ${a}.`; }))}>
        <input aria-label="Faucet amount" value={amount} onChange={(e) => setAmount(e.target.value)} inputMode="decimal" />
        <button disabled={busy || !valid}>Send test funds</button>
      </form>
      <form className="inline" onSubmit={submit(() => void run(async () => (await admin.revokeApiKey(keyId.trim()), `API key ${keyId.trim()} revoked.`)))}>
        <input aria-label="API key id" placeholder="API key id" value={keyId} onChange={(e) => setKeyId(e.target.value)} />
        <button disabled={busy || keyId.trim() === ''}>Revoke API key</button>
      </form>
      {feedback}
    </section>
  );
}

/** Fee revenue of the last 30 days, per day and market, as GET /admin/fees sums it. */
function FeesPanel() {
  const fees = useLoad(() => admin.fees(), 'fees');
  return (
    <section className="card" aria-label="Fee revenue">
      <h2>Fee revenue</h2>
      <ErrorBox error={fees.error} />
      {!fees.data ? (
        <Loading what="fees" />
      ) : (
        <>
          <p className="muted small">
            {fees.data.from} to {fees.data.to}: {money(BigInt(fees.data.totals.fees))} in fees, {money(BigInt(fees.data.totals.feeAccountFees))} to{' '}
            <code>{fees.data.feeAccount}</code>, {money(BigInt(fees.data.totals.affiliateFees))} to affiliates.{' '}
            <button onClick={fees.reload}>Refresh</button>
          </p>
          {fees.data.days.length === 0 ? (
            <Empty>No fee taken in this period.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Day</th>
                  <th>Market</th>
                  <th className="num">Fees</th>
                  <th className="num">To affiliates</th>
                  <th className="num">Bettors charged</th>
                </tr>
              </thead>
              <tbody>
                {fees.data.days.map((d) => (
                  <tr key={`${d.day}:${d.marketHash}`} data-fee-day={d.day} data-fee-market={d.marketHash} data-fees={d.fees}>
                    <td>{d.day}</td>
                    <td>
                      <a href={linkTo.market(d.marketHash)}>{d.marketHash.slice(0, 10)}…</a>
                    </td>
                    <td className="num">{money(BigInt(d.fees))}</td>
                    <td className="num">{money(BigInt(d.affiliateFees))}</td>
                    <td className="num">{d.charges}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

export function ConsolePage() {
  const [signedIn, setSignedIn] = useState(() => adminToken.get() !== undefined);
  if (!signedIn) return <TokenGate onEnter={() => setSignedIn(true)} />;
  return (
    <>
      <section className="card">
        <h1>Operator console</h1>
        <button
          onClick={() => {
            adminToken.clear();
            setSignedIn(false);
          }}
        >
          Forget admin token
        </button>
      </section>
      <FixturesPanel />
      <AccountsPanel />
      <FeesPanel />
    </>
  );
}
