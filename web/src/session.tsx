// What every page shares: the wallet, the realtime connection made for it, and the odds format.
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Centrifuge } from 'centrifuge';
import { connectRealtime } from './realtime/connection';
import { developmentWallet, injectedWallet, resetDevelopmentWallet, type Wallet } from './wallet/wallet';
import type { OddsFormat } from './format';

export interface Session {
  wallet: Wallet;
  realtime: Centrifuge | undefined;
  oddsFormat: OddsFormat;
  setOddsFormat(format: OddsFormat): void;
  connectBrowserWallet(): Promise<void>;
  useDevelopmentWallet(reset?: boolean): void;
}

const SessionContext = createContext<Session | undefined>(undefined);
const ODDS_FORMAT_STORAGE = 'oddex.oddsFormat';

export function SessionProvider({ children }: { children: ReactNode }) {
  const [wallet, setWallet] = useState<Wallet>(() => developmentWallet());
  const [realtime, setRealtime] = useState<Centrifuge>();
  const [oddsFormat, setFormat] = useState<OddsFormat>(() => (localStorage.getItem(ODDS_FORMAT_STORAGE) === 'implied' ? 'implied' : 'decimal'));

  useEffect(() => {
    const client = connectRealtime(wallet);
    setRealtime(client);
    return () => client.disconnect();
  }, [wallet]);

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
        setWallet(await injectedWallet());
      },
      useDevelopmentWallet(reset = false) {
        if (reset) resetDevelopmentWallet();
        setWallet(developmentWallet());
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
