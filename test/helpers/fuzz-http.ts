// A bare HTTP client for hostile requests: exact method, raw path bytes, any headers, any body bytes.
// `fetch` normalises too much (it encodes the path, refuses some methods and headers, sets content types).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Path and query exactly as sent on the request line (already percent-encoded). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Sends one request on a fresh connection (the server may close it after refusing a request); rejects after `timeoutMs`. */
export function sendRaw(baseUrl: string, req: RawRequest, timeoutMs = 5000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { ...req.headers };
  if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
        });
        res.on('error', reject);
      },
    );
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms: ${req.method} ${req.path.slice(0, 200)}`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Writes raw bytes on a socket (malformed HTTP) and returns the status and body of whatever comes back. */
export function sendBytes(baseUrl: string, bytes: Buffer, timeoutMs = 5000): Promise<{ status: number; json: unknown; raw: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to raw bytes ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined); // a reset after the answer is fine; the answer is judged below
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);
      const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
      resolve({ status, json: parseJson(body), raw });
    });
    socket.write(bytes);
  });
}

/** The failure envelope of DECISIONS.md, or a description of what is wrong with the answer. */
export function envelopeProblem(status: number, json: unknown): string | undefined {
  if (status < 400 || status >= 500) return `status ${status} is not a 4xx`;
  const b = json as { status?: unknown; errorCode?: unknown; message?: unknown; details?: unknown } | undefined;
  if (!b || typeof b !== 'object') return 'body is not a JSON object';
  if (b.status !== 'failure') return `body.status is ${JSON.stringify(b.status)}`;
  if (typeof b.errorCode !== 'string' || !/^[A-Z_]+$/.test(b.errorCode)) return `errorCode ${JSON.stringify(b.errorCode)}`;
  if (typeof b.message !== 'string' || b.message === '') return 'message is not a non-empty string';
  // A validation failure names the field and the rule it broke (DECISIONS.md).
  if (b.errorCode === 'INVALID_PARAMETER' && !isDetailList(b.details)) return `INVALID_PARAMETER without details naming field and rule: ${JSON.stringify(b.details)}`;
  return undefined;
}

const isDetailList = (d: unknown): boolean =>
  Array.isArray(d) &&
  d.length > 0 &&
  d.every((x: { field?: unknown; rule?: unknown; message?: unknown }) => [x.field, x.rule, x.message].every((v) => typeof v === 'string' && v !== ''));
