// POST /orders/cancel/v2, /orders/cancel/event, /orders/cancel/all: EIP-712 signed by the maker, replay-protected.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { SignatureVerifier } from '../verify/verifier.js';
import { ok } from './envelope.js';
import { Address, Hash, HASH_PATTERN } from './params.js';
import { requireSigner, SIGNATURE_PATTERN } from './trading-input.js';
import { checksumAddress } from '../protocol/address.js';
import type { VerifyJob } from '../verify/jobs.js';
import type { Command } from '../engine/types.js';
import { responses } from './schemas/envelope.js';
import { CancelResult } from './schemas/trading.js';
import type { SequencerPort } from '../sequencer/port.js';

const signed = <T extends TProperties>(fields: T) =>
  Type.Object(
    {
      ...fields,
      signature: Type.String({ pattern: SIGNATURE_PATTERN }),
      salt: Type.String({ pattern: HASH_PATTERN }),
      maker: Address,
      timestamp: Type.Integer({ minimum: 0, maximum: 253402300799 }),
    },
    { additionalProperties: false },
  );

export const CancelV2 = signed({ orderHashes: Type.Array(Hash, { minItems: 1, maxItems: 1000 }) });
const CancelEvent = signed({ exchangeEventId: Type.String({ minLength: 1, maxLength: 100 }) });
const CancelAll = signed({});

type CancelCommand = Extract<Command, { kind: 'cancelOrders' | 'cancelEvent' | 'cancelAll' }>;

export interface CancelRouteDeps {
  config: Pick<Config, 'chainId' | 'domainNames'>;
  trading: Pick<SequencerPort, 'submit'>;
  verifier: Pick<SignatureVerifier, 'inClientOrder'>;
  now: () => number;
}

/** The hashing and recovery job of a signed cancel of order hashes (POST /orders/cancel/v2, POST /orders/replace). */
export const cancelV2Job = (config: CancelRouteDeps['config'], b: Static<typeof CancelV2>): VerifyJob => ({
  kind: 'cancelV2',
  domain: { name: config.domainNames.cancelV2, version: '1.0', chainId: config.chainId, salt: b.salt },
  message: { orderHashes: b.orderHashes, timestamp: BigInt(b.timestamp) },
  signature: b.signature,
});

export const cancelRoutes: FastifyPluginAsyncTypebox<CancelRouteDeps> = async (app, { config, trading, verifier, now }) => {
  const domain = (name: string, salt: string) => ({ name, version: '1.0', chainId: config.chainId, salt });

  /** Verifies the maker's signature off the writer thread, then submits the cancel in the maker's order. */
  async function cancel(
    b: Static<typeof CancelAll>,
    job: VerifyJob,
    command: (base: { at: number; maker: string; salt: string; timestamp: number }) => CancelCommand,
  ) {
    const result = await verifier.inClientOrder([b.maker], [job], ([verified]) => {
      requireSigner(verified!.signer, b.maker, 'MAKER_SIGNATURE_MISMATCH', 'cancel');
      const base = { at: now(), maker: checksumAddress(b.maker), salt: b.salt.toLowerCase(), timestamp: b.timestamp };
      return trading.submit(command(base));
    });
    return ok(result.cancel);
  }

  app.post('/orders/cancel/v2', { schema: { tags: ['orders'], body: CancelV2, response: responses(CancelResult) } }, async (request) => {
    const b = request.body;
    return cancel(b, cancelV2Job(config, b), (base) => ({
      kind: 'cancelOrders',
      ...base,
      orderHashes: b.orderHashes.map((h) => h.toLowerCase()),
    }));
  });

  app.post('/orders/cancel/event', { schema: { tags: ['orders'], body: CancelEvent, response: responses(CancelResult) } }, async (request) => {
    const b = request.body;
    const job: VerifyJob = {
      kind: 'cancelEvent',
      domain: domain(config.domainNames.cancelEvent, b.salt),
      message: { exchangeEventId: b.exchangeEventId, timestamp: BigInt(b.timestamp) },
      signature: b.signature,
    };
    return cancel(b, job, (base) => ({ kind: 'cancelEvent', ...base, exchangeEventId: b.exchangeEventId }));
  });

  app.post('/orders/cancel/all', { schema: { tags: ['orders'], body: CancelAll, response: responses(CancelResult) } }, async (request) => {
    const b = request.body;
    const job: VerifyJob = {
      kind: 'cancelAll',
      domain: domain(config.domainNames.cancelAll, b.salt),
      message: { timestamp: BigInt(b.timestamp) },
      signature: b.signature,
    };
    return cancel(b, job, (base) => ({ kind: 'cancelAll', ...base }));
  });
};
