// One full garbage collection on demand. Rebuilding the engine from a snapshot decodes tens of megabytes (the
// snapshot's text, its parsed rows) that are garbage once the engine is built; an idle exchange would keep that heap
// (and its resident memory) until trading happened to trigger a major collection. Collecting once, right after the
// rebuild, returns it at once. V8 exposes collection only behind a flag, which is set here for this one use.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

export function collectGarbage(): void {
  if (!collect) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collect = exposed;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  collect();
}
