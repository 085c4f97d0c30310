-- The engine's whole state as of a journal position (json-codec encoding) and the SHA-256 of that text: start-up
-- restores the newest snapshot whose checksum holds and replays the journal after it. The writer keeps two.
CREATE TABLE snapshots (
  journal_seq bigint PRIMARY KEY,
  taken_at bigint NOT NULL,
  body text NOT NULL,
  sha256 text NOT NULL
);
