// The catalogue of a process that does not write it (a gateway) follows the writer's: the statuses the sequencer
// journals (suspensions, reports, kick-offs) from the journal's change records, in order, and the definitions the
// catalogue's writer adds or changes (markets, fixtures, main lines) by reading it again when the stored revision
// moves. Live scores, written far more often, have a revision of their own: only they are read again when it moves.
// All are polled by one loop, so a reload and the statuses applied after it keep their order.
import type { Change } from '../engine/changes.js';
import type { Catalogue } from './catalogue.js';
import type { LiveScore } from './model.js';
import type { CatalogueRevisions } from '../store/catalogue-records.js';


/** How often the journal and the revision are asked for news. */
const POLL_MS = 200;

export interface CatalogueSource {
  /** The statuses journaled after `after`, and the position they run through. */
  statusesAfter(after: number): Promise<{ through: number; changes: readonly Change[] }>;
  /** The journal's last position. */
  journalEnd(): Promise<number>;
  /** The revisions the catalogue's writes move. */
  catalogueRevisions(): Promise<CatalogueRevisions>;
  /** Every live score. */
  liveScores(): Promise<LiveScore[]>;
}

/**
 * Follows from `from` (the journal's end before the catalogue was read) and `revisions` (read before it): reapplying
 * a status, or reading the catalogue once more, is harmless. Returns what stops it.
 */
export function followCatalogue(
  catalogue: Pick<Catalogue, 'applyCommitted' | 'reload' | 'replaceLiveScores'>,
  source: CatalogueSource,
  from: { position: number; revisions: CatalogueRevisions },
  onError: (err: unknown) => void,
): () => void {
  let { position, revisions } = from;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    try {
      const now = await source.catalogueRevisions();
      if (now.definitions !== revisions.definitions) {
        // Statuses journaled after this point are applied again over what the reload reads (live scores included).
        const end = await source.journalEnd();
        await catalogue.reload();
        if (stopped) return;
        revisions = now;
        position = Math.min(position, end);
      } else if (now.liveScores !== revisions.liveScores) {
        const scores = await source.liveScores();
        if (stopped) return;
        catalogue.replaceLiveScores(scores);
        revisions = now;
      }
      const { through, changes } = await source.statusesAfter(position);
      if (stopped) return;
      if (changes.length > 0) catalogue.applyCommitted(changes);
      position = through;
    } catch (err) {
      onError(err);
    }
    if (!stopped) {
      timer = setTimeout(() => void poll(), POLL_MS);
      timer.unref();
    }
  };
  timer = setTimeout(() => void poll(), POLL_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
