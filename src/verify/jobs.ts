// The stateless CPU work of a signed command, as plain data a worker thread can receive: hash the order or the
// EIP-712 message, then recover who signed it. Pure; runs the same on the writer thread and in a worker.
import { orderHash, recoverOrderSigner, type OrderHashFields } from '../protocol/hashing.js';
import {
  cancelAllDigest,
  cancelEventDigest,
  cancelV2Digest,
  fillDigest,
  parlayRequestDigest,
  recoverTypedDataSigner,
  type CancelDomain,
  type FillDomain,
  type FillRequest,
  type ParlayRequestMessage,
} from '../protocol/eip712.js';

export type VerifyJob =
  | { kind: 'order'; order: OrderHashFields; signature: string }
  | { kind: 'fill'; domain: FillDomain; fill: FillRequest; signature: string }
  | { kind: 'cancelV2'; domain: CancelDomain; message: { orderHashes: readonly string[]; timestamp: bigint }; signature: string }
  | { kind: 'cancelEvent'; domain: CancelDomain; message: { exchangeEventId: string; timestamp: bigint }; signature: string }
  | { kind: 'cancelAll'; domain: CancelDomain; message: { timestamp: bigint }; signature: string }
  | { kind: 'parlayRequest'; domain: CancelDomain; message: ParlayRequestMessage; signature: string };

export interface Verified {
  /** The order hash, or the EIP-712 digest that was signed (`0x` + 64 hex). */
  hash: string;
  /** The checksummed signer; undefined for a malformed or unrecoverable signature. */
  signer: string | undefined;
}

function digestOf(job: Exclude<VerifyJob, { kind: 'order' }>): string {
  switch (job.kind) {
    case 'fill':
      return fillDigest(job.domain, job.fill);
    case 'cancelV2':
      return cancelV2Digest(job.domain, job.message);
    case 'cancelEvent':
      return cancelEventDigest(job.domain, job.message);
    case 'cancelAll':
      return cancelAllDigest(job.domain, job.message);
    case 'parlayRequest':
      return parlayRequestDigest(job.domain, job.message);
  }
}

/** Hashes and recovers one job. Throws only for fields the schema should have refused (a programming error). */
export function runVerifyJob(job: VerifyJob): Verified {
  if (job.kind === 'order') {
    const hash = orderHash(job.order);
    return { hash, signer: recoverOrderSigner(hash, job.signature) };
  }
  const hash = digestOf(job);
  return { hash, signer: recoverTypedDataSigner(hash, job.signature) };
}
