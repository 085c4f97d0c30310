// Documents read-your-writes in the OpenAPI document: every reply's Oddex-Position header, and the
// Oddex-Min-Position header a read may send (read-your-writes.ts does both).
import type { OpenAPIV3 } from 'openapi-types';
import { MIN_POSITION_HEADER, POSITION_HEADER } from './read-your-writes.js';

const positionHeader: OpenAPIV3.HeaderObject = {
  description:
    'The journal position this reply reflects: after a write, the position of the last acknowledged command (its own ' +
    'or later); after a read, the position the read models covered. Send it back as Oddex-Min-Position to read at ' +
    'least that state from any gateway.',
  schema: { type: 'integer', minimum: 0 },
};

const minPositionParameter: OpenAPIV3.ParameterObject = {
  name: 'Oddex-Min-Position',
  in: 'header',
  required: false,
  description:
    'Read state at least as new as this journal position (an Oddex-Position a reply gave); it waits up to ' +
    'ODDEX_READ_WAIT_MS (1 s) for the read models, then answers 503 READ_MODEL_BEHIND with Retry-After. Without it, a ' +
    'read of account state still sees every write acknowledged before it arrived (or 503); public market data past ' +
    'that wait answers from the newest projection.',
  schema: { type: 'integer', minimum: 0 },
};

/** Adds the header to every operation's responses and the parameter to every GET. */
export function documentPositions<T extends { paths?: object }>(doc: T): T {
  // Every OpenAPI 3.x version shares these parts of paths, operations and responses.
  const paths = (doc.paths ?? {}) as OpenAPIV3.PathsObject;
  for (const item of Object.values(paths)) {
    if (!item) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = item[method];
      if (!op) continue;
      for (const response of Object.values(op.responses ?? {})) {
        if ('$ref' in response) continue;
        response.headers = { ...response.headers, [headerName(POSITION_HEADER)]: positionHeader };
      }
      if (method === 'get' && !(op.parameters ?? []).some((p) => !('$ref' in p) && p.name.toLowerCase() === MIN_POSITION_HEADER)) {
        op.parameters = [...(op.parameters ?? []), minPositionParameter];
      }
    }
  }
  return doc;
}

/** Oddex-Position as the documents spell it. */
const headerName = (lower: string) => lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
