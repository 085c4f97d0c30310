// Serves the built web page (web/ -> dist/web) at `/`. Only the page's own paths get routes: `/` and `/index.html`
// (the page) and `/assets/*` (Vite's hashed files), never a wildcard at the root, so the API, /docs, /metrics,
// /health/* and the WebSocket path can never be shadowed by the page. Files are looked up when asked for, not listed
// at start-up: `npm run build:web` while the exchange runs gives new asset names, which are served at once.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** Where `npm run build:web` writes the page (vite.config.ts `build.outDir`). */
export const WEB_BUILD_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** Vite's `build.assetsDir`: every file in it is named by its content hash. */
const ASSETS = 'assets';

export async function registerWebPage(app: FastifyInstance, dir: string = WEB_BUILD_DIR): Promise<void> {
  // Its routes are there all the same: a build made later is served without a restart.
  if (!existsSync(join(dir, 'index.html'))) app.log.warn({ dir }, 'web page not built (run `npm run build:web`): `/` answers 404 until it is');
  // Vite names assets by content hash: cache them for good. The page itself is always revalidated, so a rebuild's
  // page, naming the new assets, is the one a browser loads next.
  await app.register(fastifyStatic, {
    root: join(dir, ASSETS),
    prefix: `/${ASSETS}/`,
    // `/assets/*`: the file is resolved per request (one stat), and @fastify/send refuses paths leaving the root.
    wildcard: true,
    decorateReply: false,
    schemaHide: true,
    index: false,
    // A directory is not a file of the page: 404 like any path it does not have, not send's 403.
    allowedPath: (pathName) => !pathName.endsWith('/'),
    // The page's own warning above says when it is not built.
    suppressWarning: true,
    setHeaders(reply) {
      reply.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });
  await app.register(async (page) => {
    await page.register(fastifyStatic, {
      root: dir,
      serve: false,
      suppressWarning: true,
      setHeaders(reply) {
        reply.header('cache-control', 'no-cache');
      },
    });
    for (const url of ['/', '/index.html']) {
      page.route({ method: ['GET', 'HEAD'], url, schema: { hide: true }, handler: (_request, reply) => reply.sendFile('index.html') });
    }
  });
}
