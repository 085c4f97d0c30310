// The page's HTTP layer: the exchange's envelope in, typed data or an ExchangeError (with errorCode) out.

/** A failure answered by the exchange (or the network), shown to the user with its errorCode. */
export class ExchangeError extends Error {
  constructor(
    readonly errorCode: string,
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

function url(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function send<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ExchangeError('NETWORK_ERROR', `the exchange cannot be reached (${(err as Error).message})`, 0);
  }
  const text = await res.text();
  let parsed: { status?: string; data?: T; errorCode?: string; message?: string; token?: string } | undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok || parsed?.status === 'failure') {
    throw new ExchangeError(parsed?.errorCode ?? `HTTP_${res.status}`, parsed?.message ?? res.statusText, res.status);
  }
  if (parsed && 'data' in parsed) return parsed.data as T;
  return parsed as T;
}

export const apiGet = <T>(path: string, query?: Query, headers?: Record<string, string>) =>
  send<T>('GET', url(path, query), undefined, headers);
export const apiPost = <T>(path: string, body: unknown, headers?: Record<string, string>) => send<T>('POST', path, body, headers);
export const apiDelete = <T>(path: string, headers?: Record<string, string>) => send<T>('DELETE', path, undefined, headers);
