// The catalogue of a process that does not write it (a gateway) follows the writer's: the statuses the sequencer
// journals (suspensions, reports, kick-offs) from the journal's change records, in order, and the definitions the
// catalogue's writer adds or changes (markets, fixtures, main lines, live scores) by reading it again when the
// stored revision moves. Both are polled by one loop, so a reload and the statuses applied after it keep their order.
import type { Change } from '../engine/changes.js';
import type { Catalogue } from './catalogue.js';

/** How often the journal and the revision are asked for news. */
const POLL_MS = 200;

export interface CatalogueSource {
  /** The statuses journaled after `after`, and the position they run through. */
  statusesAfter(after: number): Promise<{ through: number; changes: readonly Change[] }>;
  /** The journal's last position. */
  journalEnd(): Promise<number>;
  /** The revision every write of definitions moves. */
  catalogueRevision(): Promise<number>;
}

/**
 * Follows from `from` (the journal's end before the catalogue was read) and `revision` (the revision read before it):
 * reapplying a status, or reading the catalogue once more, is harmless. Returns what stops it.
 */
export function followCatalogue(
  catalogue: Pick<Catalogue, 'applyCommitted' | 'reload'>,
  source: CatalogueSource,
  from: { position: number; revision: number },
  onError: (err: unknown) => void,
): () => void {
  let { position, revision } = from;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    try {
      const now = await source.catalogueRevision();
      if (now !== revision) {
        // Statuses journaled after this point are applied again over what the reload reads.
        const end = await source.journalEnd();
        await catalogue.reload();
        if (stopped) return;
        revision = now;
        position = Math.min(position, end);
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
