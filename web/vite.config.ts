// Builds the page into dist/web, which the exchange serves at `/` (src/api/web-page.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  // The page bundles the client from its source (../tsconfig.json's `paths` says why).
  resolve: { alias: { '@oddex/sdk': fileURLToPath(new URL('../packages/sdk/src/index.ts', import.meta.url)) } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  // `npm run dev:web` proxies the API and WebSocket to a local exchange.
  server: {
    proxy: {
      '^/(markets|orders|trades|fixture|leagues|sports|search|metadata|balances|live-scores|teams|admin|user|heartbeat)': 'http://127.0.0.1:8080',
      '/connection/websocket': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
