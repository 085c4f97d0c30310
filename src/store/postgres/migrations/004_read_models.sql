-- The read models (the SQLite rm_* tables of src/store/sqlite/migrations.ts, in their final shape), written by the
-- projector (../projector.ts) from the journal's change records with its checkpoint, one transaction per batch.
-- Wei and odds are numeric(78,0): exact for any uint256, read back as decimal text and turned into bigint. Times are
-- milliseconds (bigint). Addresses that SQLite compares COLLATE NOCASE are citext here (case-insensitive equality,
-- keys and indexes alike); market hashes and the sorted text keep byte order (COLLATE "C") whatever the cluster's
-- locale, so pages come out in the order SQLite gives them.
CREATE EXTENSION IF NOT EXISTS citext;

CREATE TABLE rm_orders (
  order_hash text PRIMARY KEY,
  market_hash text COLLATE "C" NOT NULL,
  exchange_event_id text NOT NULL,
  maker citext NOT NULL,
  base_token text NOT NULL,
  executor text NOT NULL,
  total_bet_size numeric(78, 0) NOT NULL,
  percentage_odds numeric(78, 0) NOT NULL,
  fill_amount numeric(78, 0) NOT NULL,
  pending_fill_amount numeric(78, 0) NOT NULL,
  expiry bigint NOT NULL,
  api_expiry bigint NOT NULL,
  salt text NOT NULL,
  maker_outcome_one boolean NOT NULL,
  signature text NOT NULL,
  status text NOT NULL,
  seq bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  persistence text NOT NULL,
  cancel_reason text
);
CREATE INDEX rm_orders_by_maker ON rm_orders (maker, seq);
-- Open orders of a maker or a market: only open rows are indexed, so the cost follows the open orders.
CREATE INDEX rm_orders_open_by_maker ON rm_orders (maker, seq) WHERE status IN ('ACTIVE', 'INACTIVE');
CREATE INDEX rm_orders_open_by_market ON rm_orders (market_hash, seq) WHERE status IN ('ACTIVE', 'INACTIVE');
-- A side's takeable orders, best (lowest) odds first: the candles' best maker odds.
CREATE INDEX rm_orders_active_by_odds ON rm_orders (market_hash, maker_outcome_one, percentage_odds) WHERE status = 'ACTIVE';

CREATE TABLE rm_fills (
  fill_hash text PRIMARY KEY,
  fill_salt text NOT NULL UNIQUE,
  taker text NOT NULL,
  market_hash text NOT NULL,
  total_taker_stake numeric(78, 0) NOT NULL,
  status text NOT NULL,
  accepted_at bigint NOT NULL,
  -- The transactions that carried the fill on chain, oldest first (NULL before the first), the last one's time, the
  -- one that executed or failed it and a failure's reason; a cash out's payment and fee.
  attempts text[],
  last_attempt_at bigint,
  tx_hash text,
  failure_reason text,
  cash_out_amount numeric(78, 0),
  cash_out_fee numeric(78, 0)
);

CREATE TABLE rm_trades (
  id bigint PRIMARY KEY,
  fill_hash text NOT NULL,
  order_hash text NOT NULL,
  market_hash text COLLATE "C" NOT NULL,
  parent_market_hash text COLLATE "C",
  exchange_event_id text NOT NULL,
  base_token citext NOT NULL,
  bettor citext NOT NULL,
  counterparty text NOT NULL,
  maker boolean NOT NULL,
  outcome_one boolean NOT NULL,
  stake numeric(78, 0) NOT NULL,
  counter_stake numeric(78, 0) NOT NULL,
  odds numeric(78, 0) NOT NULL,
  status text NOT NULL,
  bet_time bigint NOT NULL,
  updated_at bigint NOT NULL,
  affiliate citext NOT NULL,
  settled boolean NOT NULL,
  settle_date bigint,
  settle_tx_hash text,
  outcome smallint,
  payout numeric(78, 0),
  credit numeric(78, 0),
  -- Incremented by every change to the row or to its fill's chain record (T_TRADE_VERSION of the listings).
  rev integer NOT NULL DEFAULT 0,
  fee numeric(78, 0)
);
CREATE INDEX rm_trades_by_bettor ON rm_trades (bettor, id);
CREATE INDEX rm_trades_by_bettor_settled ON rm_trades (bettor, settled, id, fill_hash);
CREATE INDEX rm_trades_by_market ON rm_trades (market_hash, id);
CREATE INDEX rm_trades_by_parent ON rm_trades (parent_market_hash, id) WHERE parent_market_hash IS NOT NULL;
CREATE INDEX rm_trades_by_event ON rm_trades (exchange_event_id, id);
CREATE INDEX rm_trades_by_order ON rm_trades (order_hash);
CREATE INDEX rm_trades_by_fill ON rm_trades (fill_hash);
CREATE INDEX rm_trades_by_bet_time ON rm_trades (bet_time);
-- Settled positions an on-chain escrow has not paid yet.
CREATE INDEX rm_trades_unpaid_on_chain ON rm_trades (market_hash, bettor) WHERE settled AND settle_tx_hash IS NULL;

CREATE TABLE rm_refunds (
  id bigint PRIMARY KEY,
  market_hash text NOT NULL,
  base_token text NOT NULL,
  bettor citext NOT NULL,
  maker boolean NOT NULL,
  fill_hash text NOT NULL,
  amount numeric(78, 0) NOT NULL,
  created_at bigint NOT NULL,
  chain_tx_hash text
);
CREATE INDEX rm_refunds_by_bettor ON rm_refunds (bettor, market_hash);
CREATE INDEX rm_refunds_unpaid_on_chain ON rm_refunds (id) WHERE chain_tx_hash IS NULL;

-- Running total of refunds per bettor, market and token.
CREATE TABLE rm_refund_totals (
  bettor citext NOT NULL,
  market_hash text NOT NULL,
  base_token citext NOT NULL,
  total numeric(78, 0) NOT NULL,
  PRIMARY KEY (bettor, market_hash, base_token)
);

-- Base-token wei matched per market (both sides), counted when fills execute.
CREATE TABLE rm_volume (market_hash text PRIMARY KEY, volume numeric(78, 0) NOT NULL);

-- The journal position the read models cover.
CREATE TABLE rm_position (id integer PRIMARY KEY CHECK (id = 1), journal_seq bigint NOT NULL);
INSERT INTO rm_position (id, journal_seq) VALUES (1, 0);

-- Market results as the engine journaled them.
CREATE TABLE rm_market_reports (
  market_hash text COLLATE "C" PRIMARY KEY,
  outcome smallint NOT NULL,
  reported_at bigint NOT NULL,
  team_one_score integer,
  team_two_score integer
);

-- One row per listed consolidated entry (not while its fill is pending on chain) with what it is filtered and sorted
-- on; amounts are numeric, so they sort exactly.
CREATE TABLE rm_consolidated (
  fill_hash text NOT NULL,
  bettor citext NOT NULL,
  market_hash text NOT NULL,
  kind text NOT NULL,
  quarter_market_hash text,
  exchange_event_id text NOT NULL,
  maker boolean NOT NULL,
  status text NOT NULL,
  settled boolean NOT NULL,
  ord bigint NOT NULL,
  bet_time bigint NOT NULL,
  settle_date bigint,
  outcome smallint,
  betting_outcome smallint NOT NULL,
  total_stake numeric(78, 0) NOT NULL,
  weighted_odds numeric(78, 0) NOT NULL,
  net_return numeric(78, 0) NOT NULL,
  settle_net_return numeric(78, 0) NOT NULL,
  total_return numeric(78, 0) NOT NULL,
  PRIMARY KEY (fill_hash, bettor, market_hash, kind)
);
CREATE INDEX rm_consolidated_by_bettor ON rm_consolidated (bettor, settled, bet_time, ord);
CREATE INDEX rm_consolidated_by_time ON rm_consolidated (settled, bet_time, ord);

-- Listing totals: a bettor's trades and consolidated entries per value of every filter the listings count exactly.
-- The projector writes them with the rows they count: the trades' deltas summed in memory per batch (it holds every
-- trade it changes), the entries' from their old and new rows in the statement that writes them.
CREATE TABLE rm_trade_counts (
  bettor citext NOT NULL,
  settled boolean NOT NULL,
  status text NOT NULL,
  maker boolean NOT NULL,
  base_token citext NOT NULL,
  affiliate citext NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (bettor, settled, status, maker, base_token, affiliate)
);

CREATE TABLE rm_consolidated_counts (
  bettor citext NOT NULL,
  settled boolean NOT NULL,
  status text NOT NULL,
  maker boolean NOT NULL,
  kind text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (bettor, settled, status, maker, kind)
);

-- Candles of each market's traded odds per interval, pruned past each interval's retention. open_id and close_id are
-- the trade ids that set open and close; best_one and best_two the best maker odds as decimal text.
CREATE TABLE rm_candles (
  market_hash text NOT NULL,
  interval_s integer NOT NULL,
  start_s bigint NOT NULL,
  open numeric(78, 0) NOT NULL,
  high numeric(78, 0) NOT NULL,
  low numeric(78, 0) NOT NULL,
  close numeric(78, 0) NOT NULL,
  volume numeric(78, 0) NOT NULL,
  open_id bigint NOT NULL,
  close_id bigint NOT NULL,
  best_one text,
  best_two text,
  PRIMARY KEY (market_hash, interval_s, start_s)
);

-- Every fee taken, for the operator's revenue per day and market.
CREATE TABLE rm_fees (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  market_hash text COLLATE "C" NOT NULL,
  bettor citext NOT NULL,
  fee numeric(78, 0) NOT NULL,
  fee_account text NOT NULL,
  affiliate citext NOT NULL,
  affiliate_fee numeric(78, 0) NOT NULL,
  charged_at bigint NOT NULL
);
CREATE INDEX rm_fees_by_time ON rm_fees (charged_at);

-- Every movement of a wallet's balance with the balance after it, and the balance the last entry left per wallet.
-- Ids are given by the projector (the next after the largest), as SQLite's rowids are: a rolled-back batch leaves no gap.
CREATE TABLE rm_statement (
  id bigint PRIMARY KEY,
  address citext NOT NULL,
  kind text NOT NULL,
  amount numeric(78, 0) NOT NULL,
  balance numeric(78, 0) NOT NULL,
  market_hash text,
  trade_id text,
  refund_id bigint,
  at bigint NOT NULL
);
CREATE INDEX rm_statement_by_address ON rm_statement (address, id);
CREATE TABLE rm_statement_balances (address citext PRIMARY KEY, balance numeric(78, 0) NOT NULL);

-- Every cash out paid: what the bettor was paid at once, before the cash-out fee, and the fee.
CREATE TABLE rm_cashouts (
  fill_hash text PRIMARY KEY,
  market_hash text NOT NULL,
  bettor citext NOT NULL,
  hedge_stake numeric(78, 0) NOT NULL,
  value numeric(78, 0) NOT NULL,
  amount numeric(78, 0) NOT NULL,
  fee numeric(78, 0) NOT NULL,
  affiliate_fee numeric(78, 0) NOT NULL,
  paid_at bigint NOT NULL
);
CREATE INDEX rm_cashouts_by_bettor ON rm_cashouts (bettor, market_hash);

-- Each address's balance record as its last balanceChanged change left it.
CREATE TABLE rm_balances (
  address citext PRIMARY KEY,
  balance numeric(78, 0) NOT NULL,
  escrowed numeric(78, 0) NOT NULL,
  open_exposure numeric(78, 0) NOT NULL,
  pending_taker_stake numeric(78, 0) NOT NULL
);
