-- Processes that do not write the catalogue (gateways) keep a copy of it in memory. Every write of its definitions
-- (sports, leagues, teams, fixtures, markets, main lines, parlays, live scores) moves this revision in the same
-- transaction, and such a process reads the catalogue again when it sees the revision move. Statuses set by the
-- journal do not move it: those processes follow them from the journal's change records.
CREATE TABLE catalogue_revision (
  id int PRIMARY KEY CHECK (id = 1),
  revision bigint NOT NULL
);
INSERT INTO catalogue_revision (id, revision) VALUES (1, 0);
