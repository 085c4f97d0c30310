// Jobs cross to the workers as flat arrays of strings, numbers and booleans: structured cloning of nested objects
// with bigints cost the writer thread about three times as much (14 µs against 5 µs per order job, measured).
import type { VerifyJob } from './jobs.js';

export type WireJob = (string | number | boolean)[];

const KIND = ['order', 'fill', 'cancelV2', 'cancelEvent', 'cancelAll', 'parlayRequest'] as const;

export function toWire(job: VerifyJob): WireJob {
  switch (job.kind) {
    case 'order': {
      const o = job.order;
      return [0, job.signature, o.marketHash, o.baseToken, String(o.totalBetSize), String(o.percentageOdds), String(o.expiry), String(o.salt), o.maker, o.executor, o.isMakerBettingOutcomeOne];
    }
    case 'fill': {
      const { domain: d, fill: f } = job;
      const wire = [1, job.signature, d.name, d.version, d.chainId, d.verifyingContract, f.market, f.baseToken, String(f.stakeWei), String(f.desiredOdds), f.oddsSlippage, f.isTakerBettingOutcomeOne, String(f.fillSalt)];
      // A cash out's target rides last, only when set.
      if (f.cashOutTarget !== undefined) wire.push(f.cashOutTarget);
      return wire;
    }
    case 'cancelV2':
      return [2, job.signature, ...cancelDomain(job.domain), String(job.message.timestamp), ...job.message.orderHashes];
    case 'cancelEvent':
      return [3, job.signature, ...cancelDomain(job.domain), String(job.message.timestamp), job.message.exchangeEventId];
    case 'cancelAll':
      return [4, job.signature, ...cancelDomain(job.domain), String(job.message.timestamp)];
    case 'parlayRequest': {
      const m = job.message;
      // Legs last, two cells each: market hash, then the side picked.
      const legs = m.legs.flatMap((l) => [l.marketHash, l.bettingOutcomeOne]);
      return [5, job.signature, ...cancelDomain(job.domain), String(m.timestamp), m.baseToken, String(m.requestSize), ...legs];
    }
  }
}

const cancelDomain = (d: { name: string; version: string; chainId: number; salt: string }) => [d.name, d.version, d.chainId, d.salt];

export function fromWire(w: WireJob): VerifyJob {
  const s = (i: number) => w[i] as string;
  const n = (i: number) => w[i] as number;
  const big = (i: number) => BigInt(w[i] as string);
  const signature = s(1);
  const kind = KIND[n(0)];
  switch (kind) {
    case 'order':
      return {
        kind,
        signature,
        order: {
          marketHash: s(2),
          baseToken: s(3),
          totalBetSize: big(4),
          percentageOdds: big(5),
          expiry: big(6),
          salt: big(7),
          maker: s(8),
          executor: s(9),
          isMakerBettingOutcomeOne: w[10] as boolean,
        },
      };
    case 'fill':
      return {
        kind,
        signature,
        domain: { name: s(2), version: s(3), chainId: n(4), verifyingContract: s(5) },
        fill: {
          market: s(6),
          baseToken: s(7),
          stakeWei: big(8),
          desiredOdds: big(9),
          oddsSlippage: n(10),
          isTakerBettingOutcomeOne: w[11] as boolean,
          fillSalt: big(12),
          ...(w.length > 13 ? { cashOutTarget: s(13) } : {}),
        },
      };
    case 'cancelV2':
    case 'cancelEvent':
    case 'cancelAll': {
      const domain = { name: s(2), version: s(3), chainId: n(4), salt: s(5) };
      const timestamp = big(6);
      if (kind === 'cancelV2') return { kind, signature, domain, message: { orderHashes: w.slice(7) as string[], timestamp } };
      if (kind === 'cancelEvent') return { kind, signature, domain, message: { exchangeEventId: s(7), timestamp } };
      return { kind, signature, domain, message: { timestamp } };
    }
    case 'parlayRequest': {
      const domain = { name: s(2), version: s(3), chainId: n(4), salt: s(5) };
      const legs = [];
      for (let i = 9; i + 1 < w.length; i += 2) legs.push({ marketHash: s(i), bettingOutcomeOne: w[i + 1] as boolean });
      return { kind, signature, domain, message: { timestamp: big(6), baseToken: s(7), requestSize: big(8), legs } };
    }
    default:
      throw new TypeError(`unknown verification job kind ${String(w[0])}`);
  }
}
