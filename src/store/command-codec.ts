// How a journal row holds an engine command. Two formats, told apart by the row's first character:
// - version 1 (rows written before it, and commands of kinds listed as 'tagged' below): JSON whose bigints are
//   tagged objects {"$n": "..."}. JSON.stringify with a replacer and JSON.parse with a reviver call back into
//   JavaScript for every key, which made the journal the most expensive encoding of a command.
// - version 2: "2" followed by plain JSON where each known bigint field holds its decimal string. Native
//   JSON.stringify and JSON.parse do the work; only the few bigint fields of a kind are converted.
// Both decode to the same command, so journals written by any version replay.
import type { Command, NewOrder, SignedFill } from '../engine/types.js';
import { decodeJson, encodeJson } from './json-codec.js';

type Kind = Command['kind'];
type CommandOf<K extends Kind> = Extract<Command, { kind: K }>;
/** A command as version 2 writes it: the same shape with bigints as decimal strings. */
type Plain = Record<string, unknown>;

interface KindCodec<K extends Kind> {
  toPlain(cmd: CommandOf<K>): Plain;
  /** Converts the bigint fields of a parsed row back, in place. */
  fromPlain(plain: Plain): CommandOf<K>;
}

const V2 = '2';
const same = <K extends Kind>(): KindCodec<K> => ({
  toPlain: (cmd) => cmd as unknown as Plain,
  fromPlain: (plain) => plain as unknown as CommandOf<K>,
});
const big = (v: unknown) => BigInt(v as string);

const orderToPlain = (o: NewOrder) => ({ ...o, totalBetSize: o.totalBetSize.toString(), percentageOdds: o.percentageOdds.toString() });
const orderFromPlain = (o: Plain): NewOrder => {
  o.totalBetSize = big(o.totalBetSize);
  o.percentageOdds = big(o.percentageOdds);
  return o as unknown as NewOrder;
};
const signedFromPlain = (s: Plain): SignedFill => {
  s.stakeWei = big(s.stakeWei);
  s.desiredOdds = big(s.desiredOdds);
  return s as unknown as SignedFill;
};
const withAmount = <T extends { amount: bigint }>(x: T) => ({ ...x, amount: x.amount.toString() });
const amountFromPlain = (x: Plain) => {
  x.amount = big(x.amount);
  return x;
};

/**
 * Every command kind names its codec: version 2 with its bigint fields, or 'tagged' (version 1) for rare kinds
 * where the generic encoding costs nothing that matters. A new kind must be listed here (the type requires it).
 */
const CODECS: { [K in Kind]: KindCodec<K> | 'tagged' } = {
  faucet: {
    toPlain: (c) => withAmount(c),
    fromPlain: (p) => amountFromPlain(p) as unknown as CommandOf<'faucet'>,
  },
  transfer: {
    toPlain: (c) => withAmount(c),
    fromPlain: (p) => amountFromPlain(p) as unknown as CommandOf<'transfer'>,
  },
  postOrders: {
    toPlain: (c) => ({ ...c, orders: c.orders.map(orderToPlain) }),
    fromPlain: (p) => {
      (p.orders as Plain[]).forEach(orderFromPlain);
      return p as unknown as CommandOf<'postOrders'>;
    },
  },
  fill: {
    toPlain: (c) => ({
      ...c,
      stakeWei: c.stakeWei.toString(),
      desiredOdds: c.desiredOdds.toString(),
      ...(c.signed ? { signed: { ...c.signed, stakeWei: c.signed.stakeWei.toString(), desiredOdds: c.signed.desiredOdds.toString() } } : {}),
      ...(c.minStakeWei !== undefined ? { minStakeWei: c.minStakeWei.toString() } : {}),
    }),
    fromPlain: (p) => {
      p.stakeWei = big(p.stakeWei);
      p.desiredOdds = big(p.desiredOdds);
      // Rows written before minStakeWei existed lack it, and decode as fills without a minimum, as they ran.
      if (p.minStakeWei !== undefined) p.minStakeWei = big(p.minStakeWei);
      if (p.signed) signedFromPlain(p.signed as Plain);
      return p as unknown as CommandOf<'fill'>;
    },
  },
  confirmFill: same(),
  fillAttempt: same(),
  chainEvents: 'tagged',
  cancelOrders: same(),
  cancelEvent: same(),
  cancelAll: same(),
  replaceOrders: {
    toPlain: (c) => ({ ...c, orders: c.orders.map(orderToPlain) }),
    fromPlain: (p) => {
      (p.orders as Plain[]).forEach(orderFromPlain);
      return p as unknown as CommandOf<'replaceOrders'>;
    },
  },
  heartbeat: same(),
  expire: same(),
  reportMarkets: same(),
  cancelMarketOrders: same(),
  liftRestriction: same(),
  setMarketStatus: same(),
  setFixtureStatus: same(),
};

/** The row text of a command. */
export function encodeCommand(cmd: Command): string {
  const codec = CODECS[cmd.kind] as KindCodec<Kind> | 'tagged' | undefined;
  if (codec === undefined || codec === 'tagged') return encodeJson(cmd);
  return V2 + JSON.stringify(codec.toPlain(cmd));
}

/** The command of a row written by any version. */
export function decodeCommand(text: string): Command {
  if (!text.startsWith(V2)) return decodeJson<Command>(text);
  const plain = JSON.parse(text.slice(V2.length)) as Plain;
  const codec = CODECS[plain.kind as Kind] as KindCodec<Kind> | 'tagged' | undefined;
  if (codec === undefined || codec === 'tagged') throw new Error(`journal: no version 2 codec for command kind ${String(plain.kind)}`);
  return codec.fromPlain(plain);
}
