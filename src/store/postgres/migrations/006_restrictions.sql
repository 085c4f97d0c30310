-- Each account's recent shortfalls and posting restriction as its last restrictionChanged change left them (a lift
-- deletes the row): the operator's view of an account reads them from the read side. Read models projected before
-- this table existed are seeded from the engine at start-up (restrictions.seeded in store_settings).
CREATE TABLE rm_restrictions (
  address citext PRIMARY KEY,
  restricted_until bigint,
  -- Times (ms) of the recent shortfalls, oldest first.
  shortfalls bigint[] NOT NULL
);
