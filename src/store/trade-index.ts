// Consolidated groups of a set of trades read from the read models: one per fill, bettor and market; quarter-line
// legs also roll up into a parent per fill and bettor. Built per query from the trades it concerns.
import type { Trade } from '../engine/types.js';

/** A bettor's trades of one fill on one market (several when the fill matched several of the bettor's orders). */
export interface TradeGroup {
  kind: 'plain' | 'leg';
  /** Creation sequence, for a stable order. */
  seq: number;
  marketHash: string;
  trades: Trade[];
  /** Legs only: the parent group of the same fill and bettor. */
  parent?: ParentGroup;
}

/** The synthetic parent of a quarter-line bet: both leg groups of one fill and bettor. */
export interface ParentGroup {
  kind: 'parent';
  seq: number;
  /** The quarter-line market the bet was placed on. */
  marketHash: string;
  fillHash: string;
  bettor: string;
  /** Lower line's leg first, as the engine records them. */
  legs: TradeGroup[];
}

export type ConsolidatedGroup = TradeGroup | ParentGroup;

const key = (...parts: string[]) => parts.join('|');

export class TradeIndex {
  private seq = 0;
  private readonly groupsByKey = new Map<string, TradeGroup>();
  private readonly parentsByKey = new Map<string, ParentGroup>();
  /** Every group in creation order, and per bettor (lower-case address). */
  private readonly all: ConsolidatedGroup[] = [];
  private readonly byBettor = new Map<string, ConsolidatedGroup[]>();

  /** Trades oldest first. */
  constructor(trades: Iterable<Trade>) {
    for (const t of trades) this.add(t);
  }

  /** Consolidated groups in creation order, all or one bettor's. */
  groups(bettor?: string): readonly ConsolidatedGroup[] {
    return bettor === undefined ? this.all : (this.byBettor.get(bettor.toLowerCase()) ?? []);
  }

  /** The group a trade belongs to, and its parent when it is a quarter-line leg. */
  groupsOfTrade(t: Trade): ConsolidatedGroup[] {
    const group = this.groupsByKey.get(key(t.fillHash, t.bettor.toLowerCase(), t.marketHash));
    if (!group) return [];
    return group.parent ? [group, group.parent] : [group];
  }

  private add(t: Trade): void {
    const bettor = t.bettor.toLowerCase();
    const groupKey = key(t.fillHash, bettor, t.marketHash);
    const existing = this.groupsByKey.get(groupKey);
    if (existing) {
      existing.trades.push(t);
      return;
    }
    // A quarter-line bet's parent comes first, then its legs (lower line first, as the engine records them).
    let parent: ParentGroup | undefined;
    if (t.quarterLineParentMarketHash) {
      const parentKey = key(t.fillHash, bettor, t.quarterLineParentMarketHash);
      parent = this.parentsByKey.get(parentKey);
      if (!parent) {
        parent = { kind: 'parent', seq: ++this.seq, marketHash: t.quarterLineParentMarketHash, fillHash: t.fillHash, bettor: t.bettor, legs: [] };
        this.parentsByKey.set(parentKey, parent);
        this.push(bettor, parent);
      }
    }
    const group: TradeGroup = { kind: parent ? 'leg' : 'plain', seq: ++this.seq, marketHash: t.marketHash, trades: [t] };
    if (parent) {
      group.parent = parent;
      parent.legs.push(group);
    }
    this.groupsByKey.set(groupKey, group);
    this.push(bettor, group);
  }

  private push(bettor: string, group: ConsolidatedGroup): void {
    this.all.push(group);
    const own = this.byBettor.get(bettor);
    if (own) own.push(group);
    else this.byBettor.set(bettor, [group]);
  }
}
