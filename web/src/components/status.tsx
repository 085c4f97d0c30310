// Loading, empty and error states, the same on every page.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ExchangeError } from '../api/http';

export function errorText(err: unknown): { code: string; message: string } {
  if (err instanceof ExchangeError) return { code: err.errorCode, message: err.message };
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

/** Runs `load` when its dependencies change (and on reload()); keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const run = useCallback(load, deps);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    run().then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [run, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}
