// Versioned schema. Append new migrations; never edit one that has shipped.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'journal and settings',
    sql: `
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      -- Every state-changing engine command, in the order the engine applied it.
      CREATE TABLE journal (
        seq INTEGER PRIMARY KEY,
        at_ms INTEGER NOT NULL,
        command TEXT NOT NULL
      );
    `,
  },
];

MIGRATIONS.push({
  version: 2,
  name: 'api keys',
  sql: `
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      address TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    );
  `,
});

MIGRATIONS.push({
  version: 3,
  name: 'catalogue',
  sql: `
    CREATE TABLE sports (sport_id INTEGER PRIMARY KEY, label TEXT NOT NULL);
    CREATE TABLE leagues (
      league_id INTEGER PRIMARY KEY,
      sport_id INTEGER NOT NULL REFERENCES sports(sport_id),
      label TEXT NOT NULL,
      active INTEGER NOT NULL
    );
    CREATE TABLE teams (team_id INTEGER PRIMARY KEY, sport_id INTEGER NOT NULL REFERENCES sports(sport_id), name TEXT NOT NULL);
    CREATE TABLE fixtures (
      exchange_event_id TEXT PRIMARY KEY,
      league_id INTEGER NOT NULL REFERENCES leagues(league_id),
      team_one_id INTEGER NOT NULL REFERENCES teams(team_id),
      team_two_id INTEGER NOT NULL REFERENCES teams(team_id),
      game_time INTEGER NOT NULL,
      status INTEGER NOT NULL
    );
    CREATE TABLE markets (
      market_hash TEXT PRIMARY KEY,
      exchange_event_id TEXT NOT NULL REFERENCES fixtures(exchange_event_id),
      type INTEGER NOT NULL,
      line REAL,
      selection TEXT,
      status TEXT NOT NULL,
      live_enabled INTEGER NOT NULL,
      main_line INTEGER,
      leg_lower TEXT,
      leg_higher TEXT,
      outcome INTEGER,
      reported_date TEXT,
      team_one_score INTEGER,
      team_two_score INTEGER
    );
    CREATE INDEX markets_by_event ON markets (exchange_event_id);
    CREATE TABLE live_scores (exchange_event_id TEXT PRIMARY KEY REFERENCES fixtures(exchange_event_id), record TEXT NOT NULL);
  `,
});

MIGRATIONS.push({
  version: 4,
  name: 'trading read models',
  sql: `
    -- Written from the engine's change records in the same transaction as the journal rows they come from.
    CREATE TABLE rm_orders (
      order_hash TEXT PRIMARY KEY,
      market_hash TEXT NOT NULL,
      exchange_event_id TEXT NOT NULL,
      maker TEXT NOT NULL COLLATE NOCASE,
      base_token TEXT NOT NULL,
      executor TEXT NOT NULL,
      total_bet_size TEXT NOT NULL,
      percentage_odds TEXT NOT NULL,
      fill_amount TEXT NOT NULL,
      pending_fill_amount TEXT NOT NULL,
      expiry INTEGER NOT NULL,
      api_expiry INTEGER NOT NULL,
      salt TEXT NOT NULL,
      maker_outcome_one INTEGER NOT NULL,
      signature TEXT NOT NULL,
      status TEXT NOT NULL,
      seq INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX rm_orders_by_maker ON rm_orders (maker, seq);
    CREATE TABLE rm_fills (
      fill_hash TEXT PRIMARY KEY,
      fill_salt TEXT NOT NULL UNIQUE,
      taker TEXT NOT NULL,
      market_hash TEXT NOT NULL,
      total_taker_stake TEXT NOT NULL,
      status TEXT NOT NULL,
      accepted_at INTEGER NOT NULL
    );
    CREATE TABLE rm_trades (
      id INTEGER PRIMARY KEY,
      fill_hash TEXT NOT NULL,
      order_hash TEXT NOT NULL,
      market_hash TEXT NOT NULL,
      parent_market_hash TEXT,
      exchange_event_id TEXT NOT NULL,
      base_token TEXT NOT NULL COLLATE NOCASE,
      bettor TEXT NOT NULL COLLATE NOCASE,
      counterparty TEXT NOT NULL,
      maker INTEGER NOT NULL,
      outcome_one INTEGER NOT NULL,
      stake TEXT NOT NULL,
      counter_stake TEXT NOT NULL,
      odds TEXT NOT NULL,
      status TEXT NOT NULL,
      bet_time INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      affiliate TEXT NOT NULL COLLATE NOCASE,
      settled INTEGER NOT NULL,
      settle_date INTEGER,
      settle_tx_hash TEXT,
      outcome INTEGER,
      payout TEXT,
      credit TEXT
    );
    CREATE INDEX rm_trades_by_bettor ON rm_trades (bettor, id);
    CREATE INDEX rm_trades_by_bettor_settled ON rm_trades (bettor, settled, fill_hash);
    CREATE INDEX rm_trades_by_market ON rm_trades (market_hash, id);
    CREATE INDEX rm_trades_by_parent ON rm_trades (parent_market_hash, id) WHERE parent_market_hash IS NOT NULL;
    CREATE INDEX rm_trades_by_event ON rm_trades (exchange_event_id, id);
    CREATE INDEX rm_trades_by_order ON rm_trades (order_hash);
    CREATE INDEX rm_trades_by_fill ON rm_trades (fill_hash);
    CREATE INDEX rm_trades_by_bet_time ON rm_trades (bet_time);
    CREATE TABLE rm_refunds (
      id INTEGER PRIMARY KEY,
      market_hash TEXT NOT NULL,
      base_token TEXT NOT NULL,
      bettor TEXT NOT NULL COLLATE NOCASE,
      maker INTEGER NOT NULL,
      fill_hash TEXT NOT NULL,
      amount TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX rm_refunds_by_bettor ON rm_refunds (bettor, market_hash);
    -- Base-token wei matched per market (both sides), counted when fills execute.
    CREATE TABLE rm_volume (market_hash TEXT PRIMARY KEY, volume TEXT NOT NULL);
    -- The journal position the read models cover.
    CREATE TABLE rm_position (id INTEGER PRIMARY KEY CHECK (id = 1), journal_seq INTEGER NOT NULL);
    INSERT INTO rm_position (id, journal_seq) VALUES (1, 0);
    -- Market results as the engine journaled them: the catalogue's SETTLED status is derived from these.
    CREATE TABLE rm_market_reports (
      market_hash TEXT PRIMARY KEY,
      outcome INTEGER NOT NULL,
      reported_at INTEGER NOT NULL,
      team_one_score INTEGER,
      team_two_score INTEGER
    );
  `,
});

MIGRATIONS.push({
  version: 5,
  name: 'engine snapshots',
  sql: `
    -- The engine's whole state as of a journal position; start-up loads the newest valid one and replays the tail.
    CREATE TABLE snapshots (
      journal_seq INTEGER PRIMARY KEY,
      taken_at INTEGER NOT NULL,
      body TEXT NOT NULL,
      sha256 TEXT NOT NULL
    );
  `,
});

MIGRATIONS.push({
  version: 6,
  name: 'fills on chain',
  sql: `
    -- The transactions that carried a fill to the settlement chain (JSON array, oldest first), when the last was
    -- sent, the one that executed or failed it and a failure's revert reason.
    ALTER TABLE rm_fills ADD COLUMN attempts TEXT;
    ALTER TABLE rm_fills ADD COLUMN last_attempt_at INTEGER;
    ALTER TABLE rm_fills ADD COLUMN tx_hash TEXT;
    ALTER TABLE rm_fills ADD COLUMN failure_reason TEXT;
  `,
});

MIGRATIONS.push({
  version: 7,
  name: 'refund totals',
  sql: `
    -- Running total of capital-efficiency refunds per bettor, market and token (wei, decimal text), so a ce_refunds
    -- publication carries the group total without reading the group's whole history. Filled from rm_refunds at start.
    CREATE TABLE rm_refund_totals (
      bettor TEXT NOT NULL COLLATE NOCASE,
      market_hash TEXT NOT NULL,
      base_token TEXT NOT NULL COLLATE NOCASE,
      total TEXT NOT NULL,
      PRIMARY KEY (bettor, market_hash, base_token)
    );
  `,
});

MIGRATIONS.push({
  version: 8,
  name: 'consolidated entries',
  sql: `
    -- One row per listed consolidated entry (fill, bettor, market; quarter-line parents too; not while the fill is
    -- pending on chain) with the figures it is
    -- filtered and sorted on, rewritten from the fill's trades whenever one of them changes. Amount columns are
    -- sortable text (sign letter and fixed-width digits), exact for any bigint.
    CREATE TABLE rm_consolidated (
      fill_hash TEXT NOT NULL,
      bettor TEXT NOT NULL COLLATE NOCASE,
      market_hash TEXT NOT NULL,
      kind TEXT NOT NULL,
      quarter_market_hash TEXT,
      exchange_event_id TEXT NOT NULL,
      maker INTEGER NOT NULL,
      status TEXT NOT NULL,
      settled INTEGER NOT NULL,
      ord INTEGER NOT NULL,
      bet_time INTEGER NOT NULL,
      settle_date INTEGER,
      outcome INTEGER,
      betting_outcome INTEGER NOT NULL,
      total_stake TEXT NOT NULL,
      weighted_odds TEXT NOT NULL,
      net_return TEXT NOT NULL,
      settle_net_return TEXT NOT NULL,
      total_return TEXT NOT NULL,
      PRIMARY KEY (fill_hash, bettor, market_hash, kind)
    ) WITHOUT ROWID;
    CREATE INDEX rm_consolidated_by_bettor ON rm_consolidated (bettor, settled, bet_time, ord);
    CREATE INDEX rm_consolidated_by_time ON rm_consolidated (settled, bet_time, ord);
  `,
});

MIGRATIONS.push({
  version: 9,
  name: 'settlement paid on chain',
  sql: `
    -- A trade's settle transaction is the one in which an on-chain escrow paid the bettor's position; the hashes
    -- written before this migration were derived from text, not transactions, so they are cleared.
    UPDATE rm_trades SET settle_tx_hash = NULL;
    -- Settled positions and refunds an on-chain escrow has not paid yet: what start-up hands to the chain again.
    CREATE INDEX rm_trades_unpaid_on_chain ON rm_trades (market_hash, bettor) WHERE settled = 1 AND settle_tx_hash IS NULL;
    ALTER TABLE rm_refunds ADD COLUMN chain_tx_hash TEXT;
    CREATE INDEX rm_refunds_unpaid_on_chain ON rm_refunds (id) WHERE chain_tx_hash IS NULL;
  `,
});

MIGRATIONS.push({
  version: 10,
  name: 'consolidated entries: listed ones only',
  sql: `
    -- Entries of fills still pending on chain are no longer kept (they are written once the chain has spoken).
    DELETE FROM rm_consolidated WHERE status = 'PENDING';
  `,
});

MIGRATIONS.push({
  version: 11,
  name: 'listing totals',
  sql: `
    -- A bettor's trades by settlement state in id order: GET /trades?bettor=&settled= pages newest first without a
    -- sort or a scan past the other state's trades; fill_hash keeps the fills-of-a-bettor subquery covered.
    DROP INDEX rm_trades_by_bettor_settled;
    CREATE INDEX rm_trades_by_bettor_settled ON rm_trades (bettor, settled, id, fill_hash);
    -- How many trades and consolidated entries each bettor has per value of every filter the listings count exactly
    -- (GET /trades, GET /trades/consolidated): a bettor's total is the sum of a few rows, whatever their history.
    -- Triggers keep them in the transaction that writes the rows they count, that is the journal's.
    CREATE TABLE rm_trade_counts (
      bettor TEXT NOT NULL COLLATE NOCASE,
      settled INTEGER NOT NULL,
      status TEXT NOT NULL,
      maker INTEGER NOT NULL,
      base_token TEXT NOT NULL COLLATE NOCASE,
      affiliate TEXT NOT NULL COLLATE NOCASE,
      n INTEGER NOT NULL,
      PRIMARY KEY (bettor, settled, status, maker, base_token, affiliate)
    ) WITHOUT ROWID;
    INSERT INTO rm_trade_counts SELECT bettor, settled, status, maker, base_token, affiliate, COUNT(*) FROM rm_trades
      GROUP BY bettor, settled, status, maker, base_token, affiliate;
    CREATE TRIGGER rm_trade_counts_insert AFTER INSERT ON rm_trades BEGIN
      INSERT INTO rm_trade_counts VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.base_token, NEW.affiliate, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER rm_trade_counts_update AFTER UPDATE OF settled, status ON rm_trades
      WHEN OLD.settled IS NOT NEW.settled OR OLD.status IS NOT NEW.status BEGIN
      UPDATE rm_trade_counts SET n = n - 1 WHERE bettor = OLD.bettor AND settled = OLD.settled AND status = OLD.status
        AND maker = OLD.maker AND base_token = OLD.base_token AND affiliate = OLD.affiliate;
      INSERT INTO rm_trade_counts VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.base_token, NEW.affiliate, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER rm_trade_counts_delete AFTER DELETE ON rm_trades BEGIN
      UPDATE rm_trade_counts SET n = n - 1 WHERE bettor = OLD.bettor AND settled = OLD.settled AND status = OLD.status
        AND maker = OLD.maker AND base_token = OLD.base_token AND affiliate = OLD.affiliate;
    END;

    CREATE TABLE rm_consolidated_counts (
      bettor TEXT NOT NULL COLLATE NOCASE,
      settled INTEGER NOT NULL,
      status TEXT NOT NULL,
      maker INTEGER NOT NULL,
      kind TEXT NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (bettor, settled, status, maker, kind)
    ) WITHOUT ROWID;
    INSERT INTO rm_consolidated_counts SELECT bettor, settled, status, maker, kind, COUNT(*) FROM rm_consolidated
      GROUP BY bettor, settled, status, maker, kind;
    CREATE TRIGGER rm_consolidated_counts_insert AFTER INSERT ON rm_consolidated BEGIN
      INSERT INTO rm_consolidated_counts VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.kind, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER rm_consolidated_counts_update AFTER UPDATE OF settled, status, maker ON rm_consolidated
      WHEN OLD.settled IS NOT NEW.settled OR OLD.status IS NOT NEW.status OR OLD.maker IS NOT NEW.maker BEGIN
      UPDATE rm_consolidated_counts SET n = n - 1 WHERE bettor = OLD.bettor AND settled = OLD.settled AND status = OLD.status
        AND maker = OLD.maker AND kind = OLD.kind;
      INSERT INTO rm_consolidated_counts VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.kind, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER rm_consolidated_counts_delete AFTER DELETE ON rm_consolidated BEGIN
      UPDATE rm_consolidated_counts SET n = n - 1 WHERE bettor = OLD.bettor AND settled = OLD.settled AND status = OLD.status
        AND maker = OLD.maker AND kind = OLD.kind;
    END;
  `,
});

MIGRATIONS.push({
  version: 12,
  name: 'trade revisions',
  sql: `
    -- A trade's revision, incremented by every change to its row or to its fill's chain record: listings keep
    -- rendered trades and use one while its revision is unchanged (trade-rows.ts, T_TRADE_VERSION).
    ALTER TABLE rm_trades ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
  `,
});

MIGRATIONS.push({
  version: 13,
  name: 'listing totals written per commit',
  sql: `
    -- Recording trades, giving them their fill's outcome and listing new consolidated entries change the listing
    -- totals from the read models, summed per key over a group commit and written just before it commits
    -- (count-deltas.ts); the triggers keep what is rare: settling or changing an entry, deleting. Every change is an
    -- upsert of a delta, so the totals come out the same in whatever order a transaction's triggers and its summed
    -- deltas are written (a trade recorded and settled in one commit).
    DROP TRIGGER rm_trade_counts_insert;
    DROP TRIGGER rm_trade_counts_update;
    DROP TRIGGER rm_trade_counts_delete;
    CREATE TRIGGER rm_trade_counts_settled AFTER UPDATE OF settled ON rm_trades
      WHEN OLD.settled IS NOT NEW.settled BEGIN
      INSERT INTO rm_trade_counts VALUES (OLD.bettor, OLD.settled, OLD.status, OLD.maker, OLD.base_token, OLD.affiliate, -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
      INSERT INTO rm_trade_counts VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.base_token, NEW.affiliate, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER rm_trade_counts_delete AFTER DELETE ON rm_trades BEGIN
      INSERT INTO rm_trade_counts VALUES (OLD.bettor, OLD.settled, OLD.status, OLD.maker, OLD.base_token, OLD.affiliate, -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
    END;

    DROP TRIGGER rm_consolidated_counts_insert;
    DROP TRIGGER rm_consolidated_counts_update;
    DROP TRIGGER rm_consolidated_counts_delete;
    CREATE TRIGGER rm_consolidated_counts_update AFTER UPDATE OF settled, status, maker ON rm_consolidated
      WHEN OLD.settled IS NOT NEW.settled OR OLD.status IS NOT NEW.status OR OLD.maker IS NOT NEW.maker BEGIN
      INSERT INTO rm_consolidated_counts VALUES (OLD.bettor, OLD.settled, OLD.status, OLD.maker, OLD.kind, -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
      INSERT INTO rm_consolidated_counts VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.kind, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER rm_consolidated_counts_delete AFTER DELETE ON rm_consolidated BEGIN
      INSERT INTO rm_consolidated_counts VALUES (OLD.bettor, OLD.settled, OLD.status, OLD.maker, OLD.kind, -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
    END;
  `,
});

MIGRATIONS.push({
  version: 14,
  name: 'order persistence',
  sql: `
    -- LAPSE orders are cancelled when their fixture goes live, PERSIST orders rest into play. Orders listed before
    -- the field existed read as LAPSE, as the engine restores them.
    ALTER TABLE rm_orders ADD COLUMN persistence TEXT NOT NULL DEFAULT 'LAPSE';
  `,
});

MIGRATIONS.push({
  version: 15,
  name: 'live api keys by address',
  sql: `
    -- A wallet lists its live keys and is held to a per-address limit on every create: an index over live keys only,
    -- so that lookup costs the same however many keys were revoked before.
    CREATE INDEX api_keys_live_by_address ON api_keys (address, created_at) WHERE revoked_at IS NULL;
  `,
});

MIGRATIONS.push({
  version: 16,
  name: 'price history',
  sql: `
    -- Candles of each market's traded odds (src/store/sqlite/price-history.ts): one row per market, interval and interval
    -- start, pruned past each interval's retention. open_id and close_id are the trade ids that set open and close.
    CREATE TABLE rm_candles (
      market_hash TEXT NOT NULL,
      interval_s INTEGER NOT NULL,
      start_s INTEGER NOT NULL,
      open TEXT NOT NULL,
      high TEXT NOT NULL,
      low TEXT NOT NULL,
      close TEXT NOT NULL,
      volume TEXT NOT NULL,
      open_id INTEGER NOT NULL,
      close_id INTEGER NOT NULL,
      best_one TEXT,
      best_two TEXT,
      PRIMARY KEY (market_hash, interval_s, start_s)
    ) WITHOUT ROWID;
    -- A side's takeable orders best first: decimal odds strings order as numbers by length, then text.
    CREATE INDEX rm_orders_active_by_odds ON rm_orders (market_hash, maker_outcome_one, length(percentage_odds), percentage_odds)
      WHERE status = 'ACTIVE';
  `,
});

MIGRATIONS.push({
  version: 17,
  name: 'parlays',
  sql: `
    -- A parlay market is a row of markets (type 999, under the fixture of its earliest leg) plus what its request
    -- fixed. A bettor's salt opens one request only, whatever its legs.
    CREATE TABLE parlays (
      market_hash TEXT PRIMARY KEY REFERENCES markets(market_hash),
      bettor TEXT NOT NULL,
      salt TEXT NOT NULL,
      base_token TEXT NOT NULL,
      request_size TEXT NOT NULL,
      legs TEXT NOT NULL,
      requested_at INTEGER NOT NULL,
      quote_window_ends_at INTEGER NOT NULL,
      fill_deadline INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX parlays_by_bettor_salt ON parlays (bettor, salt);
  `,
});

MIGRATIONS.push({
  version: 18,
  name: 'fees',
  sql: `
    -- The commission settlement took on each trade's winnings (NULL until settled; trades settled before fees read 0).
    ALTER TABLE rm_trades ADD COLUMN fee TEXT;
    -- Every fee taken, for the operator's revenue per day and market (GET /admin/fees).
    CREATE TABLE rm_fees (
      id INTEGER PRIMARY KEY,
      market_hash TEXT NOT NULL,
      bettor TEXT NOT NULL COLLATE NOCASE,
      fee TEXT NOT NULL,
      fee_account TEXT NOT NULL,
      affiliate TEXT NOT NULL COLLATE NOCASE,
      affiliate_fee TEXT NOT NULL,
      charged_at INTEGER NOT NULL
    );
    CREATE INDEX rm_fees_by_time ON rm_fees (charged_at);
  `,
});

MIGRATIONS.push({
  version: 19,
  name: 'order cancel reason',
  sql: `
    -- Why a CANCELLED order was cancelled (maker_cancel, heartbeat_expired, kick_off, ...). Orders cancelled before
    -- the column existed have none.
    ALTER TABLE rm_orders ADD COLUMN cancel_reason TEXT;
  `,
});

MIGRATIONS.push({
  version: 20,
  name: 'funds statement',
  sql: `
    -- Every movement of a wallet's balance with the balance after it (GET /account/statement), and the balance the
    -- last entry left per wallet. Movements before this version are not entered one by one: an address's first
    -- entry then also holds the balance it had before, as a deposit.
    CREATE TABLE rm_statement (
      id INTEGER PRIMARY KEY,
      address TEXT NOT NULL COLLATE NOCASE,
      kind TEXT NOT NULL,
      amount TEXT NOT NULL,
      balance TEXT NOT NULL,
      market_hash TEXT,
      trade_id TEXT,
      refund_id INTEGER,
      at INTEGER NOT NULL
    );
    CREATE INDEX rm_statement_by_address ON rm_statement (address, id);
    CREATE TABLE rm_statement_balances (address TEXT PRIMARY KEY COLLATE NOCASE, balance TEXT NOT NULL);
  `,
});

MIGRATIONS.push({
  version: 21,
  name: 'journaled change records',
  sql: `
    -- Each command's change records (JSON, bigints tagged), written with it: the read models and the realtime
    -- publications are derived from them by consumers that follow the journal. Rows from before have none; their
    -- records are found again by applying the commands to the engine.
    ALTER TABLE journal ADD COLUMN changes TEXT;
  `,
});

MIGRATIONS.push({
  version: 22,
  name: 'open orders by maker and by market',
  sql: `
    -- GET /orders lists a maker's or a market's open orders from the read models: only open rows are indexed, so the
    -- cost follows the open orders, not every order ever posted.
    CREATE INDEX rm_orders_open_by_maker ON rm_orders (maker, seq) WHERE status IN ('ACTIVE', 'INACTIVE');
    CREATE INDEX rm_orders_open_by_market ON rm_orders (market_hash, seq) WHERE status IN ('ACTIVE', 'INACTIVE');
  `,
});

MIGRATIONS.push({
  version: 23,
  name: 'cash outs',
  sql: `
    -- Every cash out paid (a cashedOut change): what the bettor was paid at once when its hedge fill executed, before
    -- the cash-out fee, and the fee. GET /positions sums them per market; the fill's row repeats them for its trades.
    CREATE TABLE rm_cashouts (
      fill_hash TEXT PRIMARY KEY,
      market_hash TEXT NOT NULL,
      bettor TEXT NOT NULL COLLATE NOCASE,
      hedge_stake TEXT NOT NULL,
      value TEXT NOT NULL,
      amount TEXT NOT NULL,
      fee TEXT NOT NULL,
      affiliate_fee TEXT NOT NULL,
      paid_at INTEGER NOT NULL
    );
    CREATE INDEX rm_cashouts_by_bettor ON rm_cashouts (bettor, market_hash);
    ALTER TABLE rm_fills ADD COLUMN cash_out_amount TEXT;
    ALTER TABLE rm_fills ADD COLUMN cash_out_fee TEXT;
  `,
});

MIGRATIONS.push({
  version: 24,
  name: 'balances',
  sql: `
    -- Each address's balance record as its last balanceChanged change left it: GET /balances/:address reads it from
    -- the read side. Read models projected before this table existed are seeded from the engine at start-up
    -- (balances.seeded in settings), when both stand at the same journal position.
    CREATE TABLE rm_balances (
      address TEXT PRIMARY KEY COLLATE NOCASE,
      balance TEXT NOT NULL,
      escrowed TEXT NOT NULL,
      open_exposure TEXT NOT NULL,
      pending_taker_stake TEXT NOT NULL
    );
  `,
});

MIGRATIONS.push({
  version: 25,
  name: 'restrictions',
  sql: `
    -- Each account's recent shortfalls and posting restriction as its last restrictionChanged change left them (a
    -- lift deletes the row): the operator's view of an account reads them from the read side. Read models projected
    -- before this table existed are seeded from the engine at start-up (restrictions.seeded in settings).
    CREATE TABLE rm_restrictions (
      address TEXT PRIMARY KEY COLLATE NOCASE,
      restricted_until INTEGER,
      shortfalls TEXT NOT NULL
    );
  `,
});

MIGRATIONS.push({
  version: 26,
  name: 'consolidated entries in a rowid table',
  sql: `
    -- An entry's row was kept in its key's order (fill hash first: random), about 500 bytes each, and the two listing
    -- indexes carried that key (about 190 bytes) to find it: listing a fill's entries split pages across all three.
    -- Rows now append in rowid order; the key is a unique index, and the listing indexes carry the 8-byte rowid.
    CREATE TABLE rm_consolidated_rows (
      fill_hash TEXT NOT NULL,
      bettor TEXT NOT NULL COLLATE NOCASE,
      market_hash TEXT NOT NULL,
      kind TEXT NOT NULL,
      quarter_market_hash TEXT,
      exchange_event_id TEXT NOT NULL,
      maker INTEGER NOT NULL,
      status TEXT NOT NULL,
      settled INTEGER NOT NULL,
      ord INTEGER NOT NULL,
      bet_time INTEGER NOT NULL,
      settle_date INTEGER,
      outcome INTEGER,
      betting_outcome INTEGER NOT NULL,
      total_stake TEXT NOT NULL,
      weighted_odds TEXT NOT NULL,
      net_return TEXT NOT NULL,
      settle_net_return TEXT NOT NULL,
      total_return TEXT NOT NULL
    );
    INSERT INTO rm_consolidated_rows SELECT * FROM rm_consolidated ORDER BY bet_time, ord;
    DROP TABLE rm_consolidated;
    ALTER TABLE rm_consolidated_rows RENAME TO rm_consolidated;
    CREATE UNIQUE INDEX rm_consolidated_key ON rm_consolidated (fill_hash, bettor, market_hash, kind);
    CREATE INDEX rm_consolidated_by_bettor ON rm_consolidated (bettor, settled, bet_time, ord);
    CREATE INDEX rm_consolidated_by_time ON rm_consolidated (settled, bet_time, ord);
    CREATE TRIGGER rm_consolidated_counts_update AFTER UPDATE OF settled, status, maker ON rm_consolidated
      WHEN OLD.settled IS NOT NEW.settled OR OLD.status IS NOT NEW.status OR OLD.maker IS NOT NEW.maker BEGIN
      INSERT INTO rm_consolidated_counts VALUES (OLD.bettor, OLD.settled, OLD.status, OLD.maker, OLD.kind, -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
      INSERT INTO rm_consolidated_counts VALUES (NEW.bettor, NEW.settled, NEW.status, NEW.maker, NEW.kind, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    END;
    CREATE TRIGGER rm_consolidated_counts_delete AFTER DELETE ON rm_consolidated BEGIN
      INSERT INTO rm_consolidated_counts VALUES (OLD.bettor, OLD.settled, OLD.status, OLD.maker, OLD.kind, -1)
        ON CONFLICT DO UPDATE SET n = n - 1;
    END;
  `,
});

MIGRATIONS.push({
  version: 27,
  name: 'consolidated entries by market and by event',
  sql: `
    -- GET /trades/consolidated?marketHash= (a quarter-line market matches its legs' entries too) and ?exchangeEventId=
    -- without a bettor had only the (settled, bet_time, ord) index: each request counted and sorted every settled or
    -- unsettled entry of the exchange, a cost that grew with its whole history (115 ms a request at 200,000 commands).
    CREATE INDEX rm_consolidated_by_market ON rm_consolidated (market_hash, settled, bet_time, ord);
    CREATE INDEX rm_consolidated_by_quarter_market ON rm_consolidated (quarter_market_hash, settled, bet_time, ord) WHERE quarter_market_hash IS NOT NULL;
    CREATE INDEX rm_consolidated_by_event ON rm_consolidated (exchange_event_id, settled, bet_time, ord);
  `,
});
