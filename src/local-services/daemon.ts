// A server process of a local service, started again with the same command after a halt (a restart on the same
// port). `launch` resolves once `ready` says it answers, and rejects if it does not (not installed, exited, too slow).
import { spawn, type ChildProcess } from 'node:child_process';

export interface Daemon {
  launch(): Promise<void>;
  /** SIGKILL, as a crash or a network cut looks to its clients. */
  halt(): Promise<void>;
}

export function daemon(command: string, args: readonly string[], ready: (exited: () => boolean) => Promise<void>): Daemon {
  let proc: ChildProcess | undefined;
  return {
    async launch() {
      const p = spawn(command, args, { stdio: 'ignore' });
      let failed = false;
      p.once('error', () => (failed = true)); // not installed: `ready` reports it
      p.once('exit', () => (failed = true));
      proc = p;
      await ready(() => failed);
    },
    async halt() {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null || p.pid === undefined) return;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGKILL');
      });
    },
  };
}

/** The first launch: if the server does not come up, it is killed and `cleanUp` runs (its temp dir) before the error is rethrown. */
export async function launchOrCleanUp(d: Daemon, cleanUp: () => void): Promise<void> {
  try {
    await d.launch();
  } catch (err) {
    await d.halt();
    cleanUp();
    throw err;
  }
}
