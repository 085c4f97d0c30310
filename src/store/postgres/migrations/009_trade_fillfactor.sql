-- Trades and fills are written PENDING and updated when their fill executes, most often by a later projector batch,
-- when newer rows have filled their page: the update could not stay on the page (a HOT update) and added an entry
-- to every index, ten of rm_trades' (bench/throughput.ts fills on PostgreSQL: 87 of 3,694 trade updates were HOT).
-- Room kept on each page lets those updates, which change no indexed column, stay on it. Pages written before keep
-- their layout; only new ones leave the room.
ALTER TABLE rm_trades SET (fillfactor = 75);
ALTER TABLE rm_fills SET (fillfactor = 75);
