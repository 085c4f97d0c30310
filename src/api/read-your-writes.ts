// Read-your-writes: every reply names the journal position it reflects (`Oddex-Position`: the acknowledged
// position after a write, the read models' position after a read), and a read waits, bounded, until the read models
// cover every write acknowledged before it arrived, or the later position the client names in `Oddex-Min-Position`.
// Past the bound it answers 503 READ_MODEL_BEHIND with Retry-After: never state older than the client's own writes.
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

export const POSITION_HEADER = 'oddex-position';
export const MIN_POSITION_HEADER = 'oddex-min-position';

export interface ReadYourWritesDeps {
  /** The journal position of the last acknowledged write. */
  acknowledged: () => number;
  projection: { readonly position: number; waitFor(seq: number, timeoutMs: number): Promise<boolean> };
  /** How long a read waits for the read models before answering READ_MODEL_BEHIND. */
  waitMs: number;
}

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

function namedPosition(value: string | string[] | undefined): number {
  if (value === undefined) return 0;
  const text = Array.isArray(value) ? value[0]! : value;
  if (!/^\d{1,15}$/.test(text)) {
    const message = `${MIN_POSITION_HEADER} must be a journal position (a non-negative integer)`;
    throw new ApiError('INVALID_PARAMETER', message, {}, [{ field: MIN_POSITION_HEADER, rule: 'pattern', message }]);
  }
  return Number(text);
}

/** Adds the hooks to every route registered in `api` after this call. */
export function addReadYourWrites(api: FastifyInstance, deps: ReadYourWritesDeps): void {
  api.addHook('onRequest', async (request) => {
    if (!isRead(request.method)) return;
    const target = Math.max(deps.acknowledged(), namedPosition(request.headers[MIN_POSITION_HEADER]));
    if (target <= deps.projection.position) return;
    if (await deps.projection.waitFor(target, deps.waitMs)) return;
    throw new ApiError('READ_MODEL_BEHIND', `the read models have not reached journal position ${target} yet; retry shortly`, {
      headers: { 'retry-after': '1' },
    });
  });
  api.addHook('onSend', async (request, reply, payload) => {
    reply.header(POSITION_HEADER, String(isRead(request.method) ? deps.projection.position : deps.acknowledged()));
    return payload;
  });
}
