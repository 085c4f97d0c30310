// Serves the built web page (web/ -> dist/web) at `/`. Only the files of the build get routes (no wildcard),
// so the API, /docs, /metrics, /health/* and the WebSocket path can never be shadowed by the page.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** Where `npm run build:web` writes the page (vite.config.ts `build.outDir`). */
export const WEB_BUILD_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));

export async function registerWebPage(app: FastifyInstance, dir: string = WEB_BUILD_DIR): Promise<void> {
  if (!existsSync(join(dir, 'index.html'))) {
    app.log.warn({ dir }, 'web page not built (run `npm run build:web`); serving the API only');
    return;
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    wildcard: false,
    decorateReply: false,
    schemaHide: true,
    setHeaders(reply, path) {
      // Vite names assets by content hash: cache them for good; the page itself is always revalidated.
      reply.header('cache-control', path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
