-- Live scores change far more often than the rest of the catalogue (every goal of every fixture in play). Their
-- writes move this revision instead of the catalogue's, so a process that keeps a copy of the catalogue (a gateway)
-- reads the live scores again when it moves, not the whole catalogue.
ALTER TABLE catalogue_revision ADD COLUMN live_scores bigint NOT NULL DEFAULT 0;
