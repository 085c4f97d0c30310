// POST /parlays/request: a bettor's EIP-712 signed request for quotes on a combination of legs. It creates the
// parlay market (catalogue/parlay-rules.ts says which legs may combine) and broadcasts it on parlay_markets:global.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { SequencerPort } from '../sequencer/port.js';
import type { SignatureVerifier } from '../verify/verifier.js';
import type { VerifyJob } from '../verify/jobs.js';
import { checksumAddress } from '../protocol/address.js';
import { ExchangeError, invalidField } from '../protocol/errors.js';
import { ok } from './envelope.js';
import { ApiError } from './errors.js';
import { Address, HASH_PATTERN } from './params.js';
import { resetSeconds } from './rate-limit.js';
import { quota } from './rate-limit/limiter.js';
import { parseWei, requireBaseToken, requireSigner, SIGNATURE_PATTERN } from './trading-input.js';
import { responses } from './schemas/envelope.js';
import { Market, ParlayLeg } from './schemas/catalogue.js';

/** Bounded well above the 10 legs allowed, so a longer list gets PARLAY_LEG_COUNT rather than a schema error. */
const MAX_LEGS_READ = 100;

const ParlayRequest = Type.Object(
  {
    bettor: Address,
    baseToken: Address,
    requestSize: Type.String({ pattern: '^[0-9]{1,78}$', description: 'wei; at least the taker minimum' }),
    legs: Type.Array(ParlayLeg, { maxItems: MAX_LEGS_READ, description: '2 to 10 legs, each an ACTIVE market of another event' }),
    timestamp: Type.Integer({ minimum: 0, maximum: 253402300799, description: 'UNIX seconds, within the cancels\' skew of server time' }),
    salt: Type.String({ pattern: HASH_PATTERN, description: 'bytes32; one request per salt and bettor' }),
    signature: Type.String({ pattern: SIGNATURE_PATTERN }),
  },
  { additionalProperties: false },
);

export interface ParlayRouteDeps {
  config: Pick<Config, 'chainId' | 'domainNames' | 'baseTokenAddress' | 'takerMinimum' | 'cancelMaxSkewSeconds' | 'parlays'>;
  catalogue: Pick<Catalogue, 'createParlay' | 'toRestMarket'>;
  /** The sequencer's live engine (a parlay request is answered where it runs): what the bettor can stake. */
  trading: Pick<SequencerPort, 'liveEngine'>;
  verifier: Pick<SignatureVerifier, 'inClientOrder'>;
  now: () => number;
}

const description =
  'Requests quotes on a parlay, signed by the bettor with EIP-712: domain {name: domainNames.parlayRequest, version ' +
  '"1.0", chainId, salt}, primary type Details {legs: Leg[], baseToken: address, requestSize: uint256, timestamp: ' +
  'uint256}, Leg {marketHash: bytes32, bettingOutcomeOne: bool}. Answers the new parlay market (type 999, with legs; ' +
  'outcome one: every leg wins as picked) and publishes {marketHash, baseToken, requestSize, legs} on ' +
  'parlay_markets:global. The bettor must be able to stake requestSize (its balance less pending taker stakes), ' +
  'else 400 INSUFFICIENT_BALANCE. Orders posted on it before parlay.quoteWindowEndsAt are shown together when it passes; ' +
  'from parlay.fillDeadline on, fills answer PARLAY_FILL_WINDOW_CLOSED. Limited per bettor (429 RATE_LIMITED).';

export const parlayRoutes: FastifyPluginAsyncTypebox<ParlayRouteDeps> = async (app, { config, catalogue, trading, verifier, now }) => {
  const perBettor = quota(config.parlays.requestsPerMinute, 60_000);

  app.post('/parlays/request', { schema: { tags: ['parlays'], description, body: ParlayRequest, response: responses(Market) } }, async (request) => {
    const b = request.body;
    const requestSize = parseWei(b.requestSize, 'requestSize', 'INVALID_AMOUNT', { positive: true });
    requireBaseToken(config, b.baseToken);
    if (requestSize < config.takerMinimum) {
      throw invalidField('requestSize', 'minimum', `requestSize is below the taker minimum ${config.takerMinimum}`, 'PARLAY_REQUEST_TOO_SMALL');
    }
    const job: VerifyJob = {
      kind: 'parlayRequest',
      domain: { name: config.domainNames.parlayRequest, version: '1.0', chainId: config.chainId, salt: b.salt },
      message: { legs: b.legs, baseToken: b.baseToken, requestSize, timestamp: BigInt(b.timestamp) },
      signature: b.signature,
    };
    const market = await verifier.inClientOrder([b.bettor], [job], ([verified]) => {
      requireSigner(verified!.signer, b.bettor, 'BETTOR_SIGNATURE_MISMATCH', 'parlay request');
      const at = now();
      if (Math.abs(b.timestamp * 1000 - at) > config.cancelMaxSkewSeconds * 1000) {
        throw new ExchangeError('STALE_TIMESTAMP', `timestamp must be within ${config.cancelMaxSkewSeconds} s of server time`);
      }
      // Counted once the bettor is proven, so nobody else can use up a bettor's requests.
      const bettor = checksumAddress(b.bettor);
      const d = perBettor.consume(bettor, 'base', at);
      if (!d.allowed) {
        const retryAfter = String(resetSeconds(d));
        throw new ApiError('RATE_LIMITED', `${d.limit} parlay requests a minute per bettor; retry after ${retryAfter} s`, {
          headers: { 'retry-after': retryAfter },
        });
      }
      return catalogue.createParlay({
        bettor,
        salt: b.salt.toLowerCase(),
        baseToken: checksumAddress(b.baseToken),
        requestSize,
        legs: b.legs,
        requestedAt: at,
        quoteWindowMs: config.parlays.quoteWindowMs,
        fillWindowMs: config.parlays.fillWindowMs,
        // Makers set capital aside to quote a request: only a bettor who could stake it now may ask (the fill's check).
        requireFunds: () => {
          const funds = trading.liveEngine().takerFunds(bettor);
          if (funds < requestSize) {
            throw new ExchangeError('INSUFFICIENT_BALANCE', `${bettor} can stake ${funds}, less than requestSize ${requestSize}`);
          }
        },
      });
    });
    return ok(catalogue.toRestMarket(market));
  });
};
