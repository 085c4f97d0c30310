// What the sequencer and a projector process of its own tell each other over NATS. Both are hints that save waiting
// for a poll: the truth is the journal and the read models' checkpoint in PostgreSQL, which each side also reads now
// and then, so a lost message (a NATS restart, a projector starting) only costs time.
/** The sequencer: the journal is durable through `through`. */
export const JOURNAL_DURABLE_SUBJECT = 'oddex.journal.durable';
/** The projector: the read models cover `position` (`commands` projected by the batch that got there). */
export const READ_MODELS_PROJECTED_SUBJECT = 'oddex.projector.projected';

export interface JournalDurable {
  through: number;
}
export interface ReadModelsProjected {
  position: number;
  commands: number;
}

export const encodeSignal = (signal: JournalDurable | ReadModelsProjected): string => JSON.stringify(signal);

/** The signal's fields when they are what `keys` names as non-negative integers, else undefined (ignored). */
export function decodeSignal<K extends string>(text: string, keys: readonly K[]): Record<K, number> | undefined {
  try {
    const raw = JSON.parse(text) as Record<string, unknown>;
    return keys.every((k) => Number.isSafeInteger(raw[k]) && (raw[k] as number) >= 0) ? (raw as Record<K, number>) : undefined;
  } catch {
    return undefined;
  }
}
