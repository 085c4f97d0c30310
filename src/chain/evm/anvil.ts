// Starts a local anvil node from the @foundry-rs/anvil npm package (the binary ships inside the registry's
// per-platform package; nothing is downloaded). Binds 127.0.0.1 on a free port; the process is killed on
// stop() and, as a last resort, when this process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  pid: number;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  chainId?: number;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Seconds between blocks; default: mine each transaction at once. */
  blockTime?: number;
  /** Block gas limit; default anvil's. */
  gasLimit?: bigint;
  /**
   * The chain's state is loaded from this file if it exists and written to it at the stop, so a chain stopped and
   * started again is the same chain (its blocks, hashes and contracts). Not on an interval: the file holds every
   * block, so each write would cost more as the chain grows.
   */
  stateFile?: string;
}

/** The anvil binary of this platform's package, e.g. @foundry-rs/anvil-linux-amd64/bin/anvil. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  } catch {
    throw new Error(`${pkg} is not installed: run npm ci (anvil ships as an optional dependency per platform)`);
  }
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const chainId = opts.chainId ?? 31337;
  const args = ['--host', '127.0.0.1', '--port', String(opts.port ?? 0), '--chain-id', String(chainId)];
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  if (opts.gasLimit !== undefined) args.push('--gas-limit', String(opts.gasLimit));
  if (opts.stateFile !== undefined) args.push('--state', opts.stateFile);
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error(`anvil did not start within 20 s: ${seen.slice(-500)}`)), 20_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      void stop();
      reject(err);
    };
    const onExit = (code: number | null) => fail(new Error(`anvil exited with ${code}: ${seen.slice(-500)}`));
    child.once('error', fail);
    child.once('exit', onExit);
    child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(seen);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      // Keep draining its output so a chatty node never blocks on a full pipe.
      child.stdout!.removeAllListeners('data').resume();
      child.stderr!.removeAllListeners('data').resume();
      resolve({ rpcUrl: `http://127.0.0.1:${match[1]}`, chainId, pid: child.pid!, stop });
    });
  });
}
