// What every command shares: the global options, the clients built from them, unit parsing and printing.
import type { Command } from 'commander';
import { WebSocket } from 'ws';
import { OddexAdmin, OddexClient, parseUnits, roundToLadder, ODDS_SCALE } from '@oddex/sdk';
import { adminTokenFrom, apiKeyFrom, privateKeyFrom, UsageError } from './credentials.js';
import { toJson } from './output.js';

export interface GlobalOptions {
  url: string;
  json: boolean;
  keyFile?: string;
  adminTokenFile?: string;
}

/** Amounts on the command line are in units of the 6-decimal base token ("12.5" is 12.5 USDC). */
export const TOKEN_DECIMALS = 6;

export class CliContext {
  constructor(private readonly program: Command) {}

  get opts(): GlobalOptions {
    return this.program.opts<GlobalOptions>();
  }

  /** A client; with `signer`, signing with the configured key. */
  client(signer = false): OddexClient {
    const apiKey = apiKeyFrom();
    return new OddexClient({
      url: this.opts.url,
      ...(signer ? { signer: privateKeyFrom(this.opts) } : {}),
      ...(apiKey ? { apiKey } : {}),
      WebSocket,
    });
  }

  admin(): OddexAdmin {
    return new OddexAdmin({ url: this.opts.url, adminToken: adminTokenFrom(this.opts) });
  }

  /** Prints `value` as JSON with --json, else the human rendering. */
  print(value: unknown, human: () => string): void {
    process.stdout.write((this.opts.json ? toJson(value) : human()) + '\n');
  }
}

export function amount(raw: string): bigint {
  try {
    const wei = parseUnits(raw, TOKEN_DECIMALS);
    if (wei <= 0n) throw new RangeError('must be positive');
    return wei;
  } catch (err) {
    throw new UsageError(`amount "${raw}": ${(err as Error).message} (units of the base token, e.g. 12.5)`);
  }
}

/** Percent odds ("55" or "55.125") to the 10^20 scale, rounded to the ladder when a step is given. */
export function percentOdds(raw: string, ladderStep?: number): bigint {
  const m = /^(\d{1,2})(?:\.(\d{1,18}))?%?$/.exec(raw.trim());
  if (!m) throw new UsageError(`odds "${raw}": give a percentage between 0 and 100, e.g. 55 or 52.5`);
  const odds = BigInt(m[1]!) * 10n ** 18n + BigInt((m[2] ?? '').padEnd(18, '0'));
  if (odds <= 0n || odds >= ODDS_SCALE) throw new UsageError(`odds "${raw}" must be above 0 and below 100`);
  return ladderStep === undefined ? odds : roundToLadder(odds, ladderStep);
}

export const outcomeSide = (raw: string): boolean => {
  if (raw === 'one' || raw === '1') return true;
  if (raw === 'two' || raw === '2') return false;
  throw new UsageError(`outcome "${raw}": one or two`);
};

export const integer = (raw: string): number => {
  if (!/^-?\d+$/.test(raw)) throw new UsageError(`"${raw}" is not an integer`);
  return Number(raw);
};

/** Percentage string of 10^20-scaled odds, e.g. 55000000000000000000n -> "55%". */
export function pct(odds: bigint | undefined): string {
  if (odds === undefined) return '';
  const thousandths = (odds * 100_000n) / ODDS_SCALE;
  const s = (Number(thousandths) / 1000).toFixed(3).replace(/\.?0+$/, '');
  return `${s}%`;
}
