// How a process started from a terminal, by npm or by a supervisor learns that it should stop, calling `stop` once:
// - SIGINT and SIGTERM. A Ctrl-C reaches every process of the terminal's group, so a process may get it twice (from
//   the terminal and relayed by a parent), and a supervisor may send SIGTERM after SIGINT: signals after the first
//   are ignored, so the graceful stop the first one started finishes instead of the default action cutting it short.
// - With `watchParent` (under `npm start`), its parent going away: npm's shell neither passes npm's SIGTERM on nor
//   outlives npm, and the process, handed to init, would go on serving. Checked once a second.
export function stopOnSignals(stop: (reason: string) => void, opts: { log?: { info(obj: object, msg: string): void }; watchParent?: boolean } = {}): void {
  let stopping = false;
  const once = (reason: string) => {
    if (stopping) {
      opts.log?.info({ reason }, 'already stopping');
      return;
    }
    stopping = true;
    clearInterval(parentWatch);
    stop(reason);
  };
  process.on('SIGINT', () => once('SIGINT'));
  process.on('SIGTERM', () => once('SIGTERM'));
  const parent = process.ppid;
  const parentWatch = opts.watchParent ? setInterval(() => process.ppid !== parent && once('parent exited'), 1000).unref() : undefined;
}
