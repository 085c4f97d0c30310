// The catalogue's market and fixture statuses as the engine's change records set them, written in the journal's
// transaction: the stored catalogue can never disagree with the journal, whatever point a crash hits.
import type { Db } from './db.js';
import type { Change } from '../../engine/changes.js';
import { reportedDate } from '../catalogue-records.js';

export class CatalogueStatusProjection {
  private readonly marketStatus;
  private readonly marketReported;
  private readonly fixtureStatus;

  constructor(db: Db) {
    this.marketStatus = db.prepare("UPDATE markets SET status = ? WHERE market_hash = ? AND status <> 'SETTLED'");
    this.marketReported = db.prepare(
      `UPDATE markets SET status = 'SETTLED', outcome = ?, reported_date = ?,
         team_one_score = coalesce(?, team_one_score), team_two_score = coalesce(?, team_two_score)
       WHERE market_hash = ?`,
    );
    this.fixtureStatus = db.prepare('UPDATE fixtures SET status = ? WHERE exchange_event_id = ?');
  }

  /** Runs inside the caller's transaction. */
  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.type === 'marketStatusChanged') this.marketStatus.run(c.status, c.marketHash);
      else if (c.type === 'fixtureStatusChanged') this.fixtureStatus.run(c.status, c.exchangeEventId);
      else if (c.type === 'marketReported') {
        this.marketReported.run(c.outcome, reportedDate(c.at), c.teamOneScore ?? null, c.teamTwoScore ?? null, c.marketHash);
      }
    }
  }
}
