// Operator routes of the journal: write an engine snapshot now, and archive journal rows the oldest kept snapshot
// already covers (they move to a gzip'd file under the data dir and leave the database, SQLite's or PostgreSQL's).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../api/envelope.js';
import { ExchangeError } from '../protocol/errors.js';
import { responses } from '../api/schemas/envelope.js';

const SnapshotTaken = Type.Object({ journalSeq: Type.Integer({ description: 'journal position the snapshot covers' }) });
const Archived = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  rows: Type.Integer(),
  file: Type.String({ description: 'gzip NDJSON file under the data dir' }),
});

export interface JournalAdmin {
  /** Writes a snapshot of the engine once everything applied is durable; resolves to its journal position. */
  snapshotNow(): Promise<number>;
  /** Archives rows at or below the oldest kept snapshot; undefined when there is nothing to archive. */
  archiveJournal(): Promise<{ from: number; to: number; rows: number; file: string } | undefined>;
}

export const journalAdminRoutes: FastifyPluginAsyncTypebox<{ journal: JournalAdmin }> = async (app, { journal }) => {
  app.post('/admin/journal/snapshot', { schema: { tags: ['admin'], response: responses(SnapshotTaken) } }, async () => ok({ journalSeq: await journal.snapshotNow() }));
  app.post('/admin/journal/archive', { schema: { tags: ['admin'], response: responses(Archived) } }, async () => {
    const archived = await journal.archiveJournal();
    if (!archived) throw new ExchangeError('NOTHING_TO_ARCHIVE');
    return ok(archived);
  });
};
