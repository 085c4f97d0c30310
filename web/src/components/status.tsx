// Loading, empty and error states, the same on every page.
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { OddexApiError, OddexNetworkError, OddexOrderRejectedError } from '@oddex/sdk';

/** What the refusals a bettor or maker meets most often mean, in their words; others show the exchange's own text. */
const IN_WORDS: Record<string, string> = {
  TAKER_AMOUNT_TOO_LOW: 'The stake is below the minimum bet.',
  MAKER_AMOUNT_TOO_LOW: 'The size is below the minimum order size.',
  INSUFFICIENT_BALANCE: 'Your balance does not cover this.',
  INSUFFICIENT_SPACE: 'Not enough is on offer for this right now.',
  INVALID_ODDS_SLIPPAGE: 'No offer is within your odds and slippage.',
  MARKET_NOT_TRADEABLE: 'This market is not taking bets now.',
  PARLAY_SAME_EVENT: 'A parlay cannot have two legs from the same fixture.',
  RATE_LIMITED: 'Too many requests for now: try again a little later.',
};

export function errorText(err: unknown): { code: string; message: string } {
  if (err instanceof OddexApiError && err.errorCode === 'RATE_LIMITED' && err.retryAfterMs !== undefined) {
    const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
    const wait = seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
    return { code: err.errorCode, message: `Too many requests for now: try again in ${wait}.` };
  }
  if (err instanceof OddexApiError) return { code: err.errorCode, message: IN_WORDS[err.errorCode] ?? err.reason };
  if (err instanceof OddexNetworkError) return { code: 'NETWORK_ERROR', message: 'The exchange cannot be reached: check the connection, or try again shortly.' };
  if (err instanceof OddexOrderRejectedError) return { code: Object.values(err.statuses).join(', '), message: 'the order was refused' };
  if (err instanceof Error) return { code: 'CLIENT_ERROR', message: err.message };
  return { code: 'CLIENT_ERROR', message: String(err) };
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const { code, message } = errorText(error);
  return (
    <div className="error" role="alert">
      <strong>{message}</strong> <code>{code}</code>
    </div>
  );
}

export const Loading = ({ what }: { what: string }) => <p className="muted" aria-busy="true">Loading {what}…</p>;
export const Empty = ({ children }: { children: ReactNode }) => <p className="muted empty">{children}</p>;

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * Runs `load` whenever `key` changes (and on reload()). The last data stays shown while a newer load runs;
 * `load` itself is read at that time, so it may close over anything the key describes.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ done?: string; data?: T; error?: unknown }>({});
  const [tick, setTick] = useState(0);
  const latestLoad = useRef(load);
  useEffect(() => {
    latestLoad.current = load;
  });
  const request = `${key}#${tick}`;
  useEffect(() => {
    let live = true;
    latestLoad.current().then(
      (data) => live && setState({ done: request, data }),
      (error: unknown) => live && setState((s) => ({ done: request, data: s.data, error })),
    );
    return () => {
      live = false;
    };
  }, [request]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.done !== request, reload };
}
