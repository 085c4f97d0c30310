// Where the time goes: the functions with the most self time in a V8 CPU profile (node --cpu-prof), as a share of
// the busy (non-idle) samples. Profile the server of any HTTP bench with ODDEX_NODE_ARGS, for example:
//   ODDEX_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npx tsx bench/throughput.ts
//   npx tsx bench/profile-top.ts /tmp/prof/<file>.cpuprofile [top = 20]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/profile-top.ts <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<string, number>();
let busyUs = 0;
profile.samples.forEach((id, i) => {
  const frame = byId.get(id)!.callFrame;
  const dt = profile.timeDeltas[i] ?? 0;
  if (frame.functionName === '(idle)' || frame.functionName === '(program)') return;
  busyUs += dt;
  // The verification workers run a bundle loaded from a data: URL; its functions are minified names.
  const url = frame.url.startsWith('data:') ? '(verify worker bundle)' : frame.url.replace(/^.*\/(node_modules|src)\//, '$1/');
  const where = url ? `${url}:${frame.lineNumber + 1}` : '';
  const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
  selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
});
console.log(`busy ${(busyUs / 1e6).toFixed(2)} s of samples; top functions by self time:`);
[...selfUs.entries()]
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(topArg ?? 20))
  .forEach(([name, us]) => console.log(`${((100 * us) / busyUs).toFixed(1).padStart(5)}%  ${name}`));
