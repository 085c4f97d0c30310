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
/**
 * A kind's version 2 codec. The plain form is whatever `toPlain` makes (bigints as decimal strings), and `fromPlain`
 * takes exactly that type back, so each pair is checked against the other by the compiler.
 */
interface KindCodec<K extends Kind, P extends object> {
  toPlain(cmd: CommandOf<K>): P;
  fromPlain(plain: P): CommandOf<K>;
}
/** The codecs of all kinds side by side: the plain form erased (a decoded row is the plain form its kind wrote). */
type AnyCodec<K extends Kind> = { toPlain(cmd: CommandOf<K>): object; fromPlain(plain: never): CommandOf<K> };
const codec = <K extends Kind, P extends object>(c: KindCodec<K, P>): AnyCodec<K> => c;

const V2 = '2';
/** Kinds without bigint fields: the command is its own plain form. */
const same = <K extends Kind>(): AnyCodec<K> => codec<K, CommandOf<K>>({ toPlain: (cmd) => cmd, fromPlain: (plain) => plain });

const orderToPlain = (o: NewOrder) => ({ ...o, totalBetSize: o.totalBetSize.toString(), percentageOdds: o.percentageOdds.toString() });
const orderFromPlain = (o: ReturnType<typeof orderToPlain>): NewOrder => ({ ...o, totalBetSize: BigInt(o.totalBetSize), percentageOdds: BigInt(o.percentageOdds) });
const signedToPlain = (s: SignedFill) => ({ ...s, stakeWei: s.stakeWei.toString(), desiredOdds: s.desiredOdds.toString() });
const signedFromPlain = (s: ReturnType<typeof signedToPlain>): SignedFill => ({ ...s, stakeWei: BigInt(s.stakeWei), desiredOdds: BigInt(s.desiredOdds) });

/**
 * Every command kind names its codec: version 2 with its bigint fields, or 'tagged' (version 1) for rare kinds
 * where the generic encoding costs nothing that matters. A new kind must be listed here (the type requires it).
 */
const CODECS: { [K in Kind]: AnyCodec<K> | 'tagged' } = {
  faucet: codec({
    toPlain: (c: CommandOf<'faucet'>) => ({ ...c, amount: c.amount.toString() }),
    fromPlain: (p) => ({ ...p, amount: BigInt(p.amount) }),
  }),
  transfer: codec({
    toPlain: (c: CommandOf<'transfer'>) => ({ ...c, amount: c.amount.toString() }),
    fromPlain: (p) => ({ ...p, amount: BigInt(p.amount) }),
  }),
  postOrders: codec({
    toPlain: (c: CommandOf<'postOrders'>) => ({ ...c, orders: c.orders.map(orderToPlain) }),
    fromPlain: (p) => ({ ...p, orders: p.orders.map(orderFromPlain) }),
  }),
  fill: codec({
    toPlain: ({ signed, minStakeWei, ...c }: CommandOf<'fill'>) => ({
      ...c,
      stakeWei: c.stakeWei.toString(),
      desiredOdds: c.desiredOdds.toString(),
      ...(signed ? { signed: signedToPlain(signed) } : {}),
      ...(minStakeWei !== undefined ? { minStakeWei: minStakeWei.toString() } : {}),
    }),
    // Rows written before minStakeWei existed lack it, and decode as fills without a minimum, as they ran.
    fromPlain: ({ signed, minStakeWei, ...p }) => ({
      ...p,
      stakeWei: BigInt(p.stakeWei),
      desiredOdds: BigInt(p.desiredOdds),
      ...(signed ? { signed: signedFromPlain(signed) } : {}),
      ...(minStakeWei !== undefined ? { minStakeWei: BigInt(minStakeWei) } : {}),
    }),
  }),
  confirmFill: same(),
  fillAttempt: same(),
  chainEvents: 'tagged',
  cancelOrders: same(),
  cancelEvent: same(),
  cancelAll: same(),
  replaceOrders: codec({
    toPlain: (c: CommandOf<'replaceOrders'>) => ({ ...c, orders: c.orders.map(orderToPlain) }),
    fromPlain: (p) => ({ ...p, orders: p.orders.map(orderFromPlain) }),
  }),
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
  const c = CODECS[cmd.kind] as AnyCodec<Kind> | 'tagged' | undefined;
  if (c === undefined || c === 'tagged') return encodeJson(cmd);
  return V2 + JSON.stringify(c.toPlain(cmd));
}

/** The command of a row written by any version. */
export function decodeCommand(text: string): Command {
  if (!text.startsWith(V2)) return decodeJson<Command>(text);
  // A version 2 row holds what its kind's toPlain made: the plain form its fromPlain takes.
  const plain = JSON.parse(text.slice(V2.length)) as { kind: Kind };
  const c = CODECS[plain.kind] as AnyCodec<Kind> | 'tagged' | undefined;
  if (c === undefined || c === 'tagged') throw new Error(`journal: no version 2 codec for command kind ${String(plain.kind)}`);
  return c.fromPlain(plain as never);
}
