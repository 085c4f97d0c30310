// Capital-efficiency refund groups (GET /trades/portfolio/refunds, ce_refunds:{bettor}): a bettor's refund events
// grouped per market and base token. Groups are ordered by their latest refund, events by time, both in the
// requested direction (ties by the order the engine paid them).
import type { RefundPaid as RefundEvent } from '../engine/changes.js';
import { toHumanNumber, toHumanUnits } from '../protocol/amounts.js';
import type { ReadModels } from '../store/ports.js';
import type { Static } from '@sinclair/typebox';
import type { ChannelRefundGroup } from '../protocol/wire/realtime.js';
import type { RefundEvent as RefundEventWire } from '../protocol/wire/trades.js';

export interface RefundFilter {
  bettor: string;
  marketHash?: string;
  baseToken?: string;
  /** The fill whose confirmation freed the capital. */
  fillHash?: string;
  /** True: refunds the bettor got as a maker; false: as a taker; absent: both. */
  maker?: boolean;
}

export interface RefundGroup {
  marketHash: string;
  baseToken: string;
  totalRefundedBetTimeValue: number;
  events: Static<typeof RefundEventWire>[];
}

const lower = (s: string) => s.toLowerCase();
const byTime = (a: RefundEvent, b: RefundEvent) => a.createdAt - b.createdAt || a.id - b.id;

export function refundEventToRest(e: RefundEvent, decimals: number): Static<typeof RefundEventWire> {
  return {
    marketHash: e.marketHash,
    baseToken: e.baseToken,
    bettor: e.bettor,
    maker: e.maker,
    fillOrderHash: e.fillOrderHash,
    amount: e.amount.toString(),
    amountBetTimeValue: toHumanUnits(e.amount, decimals),
    createdAt: new Date(e.createdAt).toISOString(),
  };
}

/** The bettor's matching refunds, grouped and ordered. */
export function refundGroups(refunds: readonly RefundEvent[], f: RefundFilter, decimals: number, ascending: boolean): RefundGroup[] {
  const groups = new Map<string, RefundEvent[]>();
  for (const e of refunds) {
    if (lower(e.bettor) !== lower(f.bettor)) continue;
    if (f.marketHash !== undefined && e.marketHash !== lower(f.marketHash)) continue;
    if (f.baseToken !== undefined && lower(e.baseToken) !== lower(f.baseToken)) continue;
    if (f.fillHash !== undefined && e.fillOrderHash !== lower(f.fillHash)) continue;
    if (f.maker !== undefined && e.maker !== f.maker) continue;
    const key = `${e.marketHash}|${lower(e.baseToken)}`;
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  const dir = ascending ? 1 : -1;
  const sorted = [...groups.values()].map((events) => events.sort((a, b) => byTime(a, b) * dir));
  // After the sort the latest event is last when ascending, first when descending.
  const latest = (events: RefundEvent[]) => (ascending ? events[events.length - 1]! : events[0]!);
  sorted.sort((a, b) => byTime(latest(a), latest(b)) * dir);
  return sorted.map((events) => ({
    marketHash: events[0]!.marketHash,
    baseToken: events[0]!.baseToken,
    totalRefundedBetTimeValue: toHumanNumber(
      events.reduce((s, e) => s + e.amount, 0n),
      decimals,
    ),
    events: events.map((e) => refundEventToRest(e, decimals)),
  }));
}

/**
 * Publications after a commit: for each bettor paid refunds, one group per market and token with only the events of
 * this commit (newest first) and the group's running total. A group's history is never re-sent, so a publication's
 * size does not grow with the bettor's past refunds; a client that needs the whole group reads the REST listing.
 */
export async function changedRefundGroups(
  readModels: Pick<ReadModels, 'refunds'>,
  paid: readonly RefundEvent[],
  decimals: number,
): Promise<{ bettor: string; groups: Static<typeof ChannelRefundGroup>[] }[]> {
  const byBettor = new Map<string, Map<string, RefundEvent[]>>();
  for (const r of paid) {
    const groups = byBettor.get(r.bettor) ?? new Map<string, RefundEvent[]>();
    byBettor.set(r.bettor, groups);
    const key = `${r.marketHash}|${lower(r.baseToken)}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const updates = [...byBettor].map(([bettor, groups]) => ({
    bettor,
    groups: [...groups.values()].map((events) => events.sort((a, b) => byTime(b, a))).sort((a, b) => byTime(b[0]!, a[0]!)),
  }));
  // Each group's running total: one read per group, all at once.
  return Promise.all(
    updates.map(async ({ bettor, groups }) => ({
      bettor,
      groups: await Promise.all(
        groups.map(async (events) => {
          const { marketHash, baseToken } = events[0]!;
          return {
            marketHash,
            baseToken,
            totalRefunded: toHumanNumber(await readModels.refunds.refundTotal(bettor, marketHash, baseToken), decimals),
            events: events.map((e) => refundEventToRest(e, decimals)),
          };
        }),
      ),
    })),
  );
}
