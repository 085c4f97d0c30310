// Which wallet signs: a browser wallet (EIP-1193), the default where the browser has one, or the development wallet
// kept in this browser, labelled as such; and why the browser wallet is not the one signing when it failed to connect.
import { useState } from 'react';
import { hasInjectedProvider } from '../wallet/wallet';
import { useSession } from '../session';
import { ErrorBox } from './status';

export function WalletBadge() {
  const { wallet, walletError, connectBrowserWallet, switchToDevelopmentWallet } = useSession();
  const [error, setError] = useState<unknown>();
  const short = `${wallet.address.slice(0, 6)}…${wallet.address.slice(-4)}`;
  return (
    <div className="wallet" data-wallet-kind={wallet.kind} data-wallet-address={wallet.address}>
      {wallet.kind === 'development' ? (
        <span className="dev-wallet" title="A key generated and kept in this browser's storage, for demos and testing only. Never send real funds to it.">
          Development wallet {short}
        </span>
      ) : (
        <span>Browser wallet {short}</span>
      )}
      {wallet.kind === 'development' && hasInjectedProvider() && (
        <button onClick={() => connectBrowserWallet().catch(setError)}>Use browser wallet</button>
      )}
      {wallet.kind === 'injected' && <button onClick={() => switchToDevelopmentWallet()}>Use development wallet</button>}
      {walletError !== undefined && error === undefined && wallet.kind === 'development' && (
        <p className="error small" role="alert" data-wallet-error>
          The browser wallet did not connect ({walletError instanceof Error ? walletError.message.split('\n')[0] : String(walletError)}): the development wallet signs.
        </p>
      )}
      <ErrorBox error={error} />
    </div>
  );
}
