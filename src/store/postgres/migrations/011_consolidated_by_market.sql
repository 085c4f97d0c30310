-- GET /trades/consolidated?marketHash= (a quarter-line market matches its legs' entries too) and ?exchangeEventId=
-- without a bettor had only the (settled, bet_time, ord) index: each request read every settled or unsettled entry
-- of the exchange, a cost that grew with its whole history.
CREATE INDEX rm_consolidated_by_market ON rm_consolidated (market_hash, settled, bet_time, ord);
CREATE INDEX rm_consolidated_by_quarter_market ON rm_consolidated (quarter_market_hash, settled, bet_time, ord) WHERE quarter_market_hash IS NOT NULL;
CREATE INDEX rm_consolidated_by_event ON rm_consolidated (exchange_event_id, settled, bet_time, ord);
