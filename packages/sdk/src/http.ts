// One HTTP round trip to the exchange: JSON in and out, the envelope unwrapped, failures as typed errors,
// and retries where repeating is safe (429 and 503 always; network errors only when the caller says so).
import { OddexApiError, OddexNetworkError } from './errors.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface RetryPolicy {
  /** Attempts in all, including the first (default 4). */
  attempts: number;
  /** First back-off; doubles per attempt unless the server sent Retry-After (default 200 ms). */
  baseDelayMs: number;
  /** Longest wait between attempts (default 5 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5000 };

export interface HttpOptions {
  baseUrl: string;
  fetch?: FetchLike;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | bigint | readonly (string | number)[] | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Repeat after a network error too (the request is idempotent or the caller handles a duplicate). */
  retryOnNetworkError?: boolean;
  /** Told of each attempt (1, 2, ...) before it is sent. */
  onAttempt?: (attempt: number) => void;
  /** Keep the whole JSON body instead of unwrapping the envelope's `data`. */
  raw?: boolean;
  /** Attempts in all for this request (default: the transport's policy). */
  attempts?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` as milliseconds: delta seconds or an HTTP date. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = params.toString();
  return s ? '?' + s : '';
}

export class HttpTransport {
  readonly baseUrl: string;
  private readonly fetchFn: FetchLike;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(opts: HttpOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const f = opts.fetch ?? globalThis.fetch;
    if (!f) throw new TypeError('no fetch available: pass one in the client options');
    this.fetchFn = (input, init) => f(input, init);
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, opts: RequestOptions = {}): Promise<T> {
    const url = this.baseUrl + path + queryString(opts.query);
    const retryOnNetwork = opts.retryOnNetworkError ?? method === 'GET';
    const attempts = opts.attempts ?? this.retry.attempts;
    for (let attempt = 1; ; attempt++) {
      opts.onAttempt?.(attempt);
      let res: Response;
      try {
        res = await this.send(method, url, opts);
      } catch (err) {
        if (retryOnNetwork && attempt < attempts) {
          await sleep(this.backoff(attempt));
          continue;
        }
        throw new OddexNetworkError(method, path, err);
      }
      const text = await res.text();
      const body = parseJson(text);
      if (res.ok) {
        if (opts.raw) return body as T;
        const envelope = body as { status?: string; data?: unknown } | undefined;
        return (envelope && typeof envelope === 'object' && 'data' in envelope ? envelope.data : body) as T;
      }
      const wait = retryAfterMs(res.headers.get('retry-after'));
      const error = apiError(res.status, body, text, wait);
      // Retried after the server's Retry-After, never sooner (a retry sent early is refused again, and counts): a
      // wait longer than maxDelayMs is the caller's to decide on, with the error's retryAfterMs.
      if ((res.status === 429 || res.status === 503) && attempt < attempts && (wait === undefined || wait <= this.retry.maxDelayMs)) {
        await sleep(wait ?? this.backoff(attempt));
        continue;
      }
      throw error;
    }
  }

  private backoff(attempt: number): number {
    return Math.min(this.retry.baseDelayMs * 2 ** (attempt - 1), this.retry.maxDelayMs);
  }

  private async send(method: string, url: string, opts: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    const init: RequestInit = { method, headers };
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(opts.body);
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
    try {
      return await this.fetchFn(url, { ...init, signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function apiError(status: number, body: unknown, text: string, retryAfter: number | undefined): OddexApiError {
  const b = (body && typeof body === 'object' ? body : {}) as { errorCode?: unknown; message?: unknown; details?: unknown };
  const code = typeof b.errorCode === 'string' ? b.errorCode : `HTTP_${status}`;
  const message = typeof b.message === 'string' ? b.message : text.slice(0, 200) || `HTTP ${status}`;
  return new OddexApiError(code, status, message, b.details, retryAfter);
}
