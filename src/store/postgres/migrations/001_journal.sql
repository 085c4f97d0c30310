-- The journal: every state-changing engine command, in the order the engine applied it, with the change records
-- it made. The one durable truth: the engine, the read models and the realtime publications all derive from it.
-- Positions are assigned by the one writer (no sequence: a gap or a duplicate would be a bug, and the primary key
-- refuses a duplicate). Encodings as in the SQLite store: src/store/command-codec.ts for `command`,
-- src/store/json-codec.ts for `changes` (NULL only for rows journaled before change records were).
CREATE TABLE journal (
  seq bigint PRIMARY KEY CHECK (seq > 0),
  at_ms bigint NOT NULL,
  command text NOT NULL,
  changes text
);

-- Small facts of the store, by name (e.g. journal_archived_through).
CREATE TABLE store_settings (
  key text PRIMARY KEY,
  value text NOT NULL
);
