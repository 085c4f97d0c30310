// Entry of a worker thread (signature verification, the read-model projector). The exchange runs its TypeScript
// through tsx; a worker thread starts without the parent's loader, so a .ts module is imported through tsx's API and
// a compiled .js one directly.
import { workerData } from 'node:worker_threads';

const { module } = workerData;
if (module.endsWith('.ts')) {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport(module, import.meta.url);
} else {
  await import(module);
}
