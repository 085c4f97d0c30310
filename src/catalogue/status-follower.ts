// The catalogue of a process that does not write the journal (a gateway) follows the statuses the sequencer
// journals (suspensions, reports, kick-offs) as the sequencer's own catalogue does: from the journal's change
// records, in order, polled. Without it a gateway would keep betting delays and in-play checks of an old status.
import type { Change } from '../engine/changes.js';
import type { Catalogue } from './catalogue.js';

/** How often the journal is asked for new statuses. */
const POLL_MS = 200;

export interface StatusSource {
  /** The statuses journaled after `after`, and the position they run through. */
  statusesAfter(after: number): Promise<{ through: number; changes: readonly Change[] }>;
}

/** Follows from `from` (the journal's end before the catalogue was read: reapplying a status is harmless). Returns what stops it. */
export function followCatalogueStatuses(
  catalogue: Pick<Catalogue, 'applyCommitted'>,
  source: StatusSource,
  from: number,
  onError: (err: unknown) => void,
): () => void {
  let position = from;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    try {
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
