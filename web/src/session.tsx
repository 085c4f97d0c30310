// What every page shares: the wallet, the realtime connection made for it, and the odds format.
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { OddexRealtime } from '@oddex/sdk';
import { realtimeClient } from './realtime/connection';
import { developmentWallet, injectedWallet, resetDevelopmentWallet, type Wallet } from './wallet/wallet';
import type { OddsFormat } from './format';

export interface Session {
  wallet: Wallet;
  realtime: OddexRealtime;
  oddsFormat: OddsFormat;
  setOddsFormat(format: OddsFormat): void;
  connectBrowserWallet(): Promise<void>;
  switchToDevelopmentWallet(reset?: boolean): void;
}

const withRealtime = (wallet: Wallet) => ({ wallet, realtime: realtimeClient(wallet) });

const SessionContext = createContext<Session | undefined>(undefined);
const ODDS_FORMAT_STORAGE = 'oddex.oddsFormat';

export function SessionProvider({ children }: { children: ReactNode }) {
  // The realtime client belongs to its wallet (its token is the wallet's sign-in): they change together.
  const [{ wallet, realtime }, setSigner] = useState(() => withRealtime(developmentWallet()));
  const [oddsFormat, setFormat] = useState<OddsFormat>(() => (localStorage.getItem(ODDS_FORMAT_STORAGE) === 'implied' ? 'implied' : 'decimal'));

  useEffect(() => {
    realtime.connect();
    return () => realtime.disconnect();
  }, [realtime]);

  const session = useMemo<Session>(
    () => ({
      wallet,
      realtime,
      oddsFormat,
      setOddsFormat(format) {
        localStorage.setItem(ODDS_FORMAT_STORAGE, format);
        setFormat(format);
      },
      async connectBrowserWallet() {
        setSigner(withRealtime(await injectedWallet()));
      },
      switchToDevelopmentWallet(reset = false) {
        if (reset) resetDevelopmentWallet();
        setSigner(withRealtime(developmentWallet()));
      },
    }),
    [wallet, realtime, oddsFormat],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
