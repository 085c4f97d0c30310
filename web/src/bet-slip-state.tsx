// The bet slip's selections, kept across pages: one outcome per market, picked from any fixture's page.
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';

export interface Selection {
  marketHash: string;
  exchangeEventId: string;
  bettingOutcomeOne: boolean;
  /** What the bettor backs, as the page names it ("Arsenal", "Over 2.5"). */
  label: string;
}

export interface BetSlip {
  selections: Selection[];
  /** Adds the selection, replaces another outcome of the same market, or removes it if it is already there. */
  toggle(s: Selection): void;
  remove(marketHash: string): void;
  clear(): void;
  has(marketHash: string, bettingOutcomeOne: boolean): boolean;
}

const BetSlipContext = createContext<BetSlip | undefined>(undefined);

export function BetSlipProvider({ children }: { children: ReactNode }) {
  const [selections, setSelections] = useState<Selection[]>([]);
  const slip = useMemo<BetSlip>(
    () => ({
      selections,
      toggle(s) {
        setSelections((list) => {
          const same = list.find((x) => x.marketHash === s.marketHash);
          const others = list.filter((x) => x.marketHash !== s.marketHash);
          return same?.bettingOutcomeOne === s.bettingOutcomeOne ? others : [...others, s];
        });
      },
      remove(marketHash) {
        setSelections((list) => list.filter((x) => x.marketHash !== marketHash));
      },
      clear() {
        setSelections([]);
      },
      has: (marketHash, one) => selections.some((x) => x.marketHash === marketHash && x.bettingOutcomeOne === one),
    }),
    [selections],
  );
  return <BetSlipContext.Provider value={slip}>{children}</BetSlipContext.Provider>;
}

export function useBetSlip(): BetSlip {
  const s = useContext(BetSlipContext);
  if (!s) throw new Error('useBetSlip outside BetSlipProvider');
  return s;
}
