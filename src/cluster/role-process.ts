// One process of a cluster: `src/main.ts` with the role's settings, its output in a log file of its own. It is
// ready when it prints the line its role prints once serving (or, for a standby, once following the journal).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface RoleProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Where it listens, once it does (a standby only after it took over). */
  url: string | undefined;
  exited: Promise<number | null>;
}

const LISTENING = /listening on (http:\/\/[^\s"]+)/;

/**
 * Starts the process and resolves once a line matches `readyLine` (by default the "listening on" line); rejects if
 * it exits first. `onLine` sees every line after that (a standby's takeover, a crash's last words).
 */
export function startRole(
  opts: { name: string; root: string; env: Record<string, string>; logFile: string; readyLine?: RegExp },
  onLine: (p: RoleProcess, line: string) => void = () => {},
): Promise<RoleProcess> {
  // Node flags for every role (e.g. --cpu-prof), as the benches give their servers theirs.
  const nodeArgs = process.env.ODDEX_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
    cwd: opts.root,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const role: RoleProcess = { name: opts.name, child, logFile: opts.logFile, url: undefined, exited };
  const ready = opts.readyLine ?? LISTENING;
  return new Promise((resolve, reject) => {
    let started = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log.write(line + '\n');
      const listening = LISTENING.exec(line);
      if (listening) role.url ??= listening[1]!;
      if (started) onLine(role, line);
      else if (ready.test(line)) {
        started = true;
        resolve(role);
      }
    });
    void exited.then((code) => {
      log.end();
      if (!started) reject(new Error(`${opts.name} exited (code ${code}) before it was ready; its log: ${opts.logFile}`));
    });
  });
}
