// What every page shares: the wallet, the realtime connection made for it, and the odds format.
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { OddexRealtime } from '@oddex/sdk';
import { realtimeClient } from './realtime/connection';
import { developmentWallet, hasInjectedProvider, injectedWallet, resetDevelopmentWallet, type Wallet } from './wallet/wallet';
import type { OddsFormat } from './format';

export interface Session {
  wallet: Wallet;
  realtime: OddexRealtime;
  oddsFormat: OddsFormat;
  /** Why the browser wallet the page tried first did not connect (the development wallet signs instead). */
  walletError: unknown;
  setOddsFormat(format: OddsFormat): void;
  connectBrowserWallet(): Promise<void>;
  switchToDevelopmentWallet(reset?: boolean): void;
}

interface Signer {
  wallet: Wallet;
  realtime: OddexRealtime;
}

const withRealtime = (wallet: Wallet): Signer => ({ wallet, realtime: realtimeClient(wallet) });

const SessionContext = createContext<Session | undefined>(undefined);
const ODDS_FORMAT_STORAGE = 'oddex.oddsFormat';
/** 'development' once the bettor chose the development wallet over a browser wallet: kept until they switch back. */
const WALLET_CHOICE_STORAGE = 'oddex.walletChoice';

/** A browser wallet (an injected EIP-1193 provider) signs by default, unless the bettor chose the development wallet. */
const startsWithBrowserWallet = () => hasInjectedProvider() && localStorage.getItem(WALLET_CHOICE_STORAGE) !== 'development';

export function SessionProvider({ children }: { children: ReactNode }) {
  // The realtime client belongs to its wallet (its token is the wallet's sign-in): they change together. None yet
  // while the browser wallet is asked for its account.
  const [browserFirst] = useState(startsWithBrowserWallet);
  const [signer, setSigner] = useState<Signer | undefined>(() => (browserFirst ? undefined : withRealtime(developmentWallet())));
  const [walletError, setWalletError] = useState<unknown>();
  const [oddsFormat, setFormat] = useState<OddsFormat>(() => (localStorage.getItem(ODDS_FORMAT_STORAGE) === 'implied' ? 'implied' : 'decimal'));

  useEffect(() => {
    if (!browserFirst) return;
    let stopped = false;
    // A wallet chosen meanwhile (the development wallet, from the waiting screen) stays.
    injectedWallet().then(
      (wallet) => !stopped && setSigner((current) => current ?? withRealtime(wallet)),
      (error: unknown) => {
        if (stopped) return;
        setWalletError(error);
        setSigner((current) => current ?? withRealtime(developmentWallet()));
      },
    );
    return () => {
      stopped = true;
    };
  }, [browserFirst]);

  const realtime = signer?.realtime;
  useEffect(() => {
    if (!realtime) return;
    realtime.connect();
    return () => realtime.disconnect();
  }, [realtime]);

  const session = useMemo<Session | undefined>(
    () =>
      signer && {
        ...signer,
        oddsFormat,
        walletError,
        setOddsFormat(format) {
          localStorage.setItem(ODDS_FORMAT_STORAGE, format);
          setFormat(format);
        },
        async connectBrowserWallet() {
          const wallet = await injectedWallet();
          localStorage.removeItem(WALLET_CHOICE_STORAGE);
          setWalletError(undefined);
          setSigner(withRealtime(wallet));
        },
        switchToDevelopmentWallet(reset = false) {
          if (reset) resetDevelopmentWallet();
          if (hasInjectedProvider()) localStorage.setItem(WALLET_CHOICE_STORAGE, 'development');
          setWalletError(undefined);
          setSigner(withRealtime(developmentWallet()));
        },
      },
    [signer, oddsFormat, walletError],
  );
  if (!session) {
    return (
      <main>
        <section className="card" aria-label="Browser wallet">
          <p className="notice" role="status" data-wallet-connecting>
            Connecting to your browser wallet: approve the request in it to sign with its account.
          </p>
          <button
            onClick={() => {
              localStorage.setItem(WALLET_CHOICE_STORAGE, 'development');
              setSigner(withRealtime(developmentWallet()));
            }}
          >
            Use the development wallet instead
          </button>
        </section>
      </main>
    );
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
