// Which wallet signs: a browser wallet (EIP-1193), or the development wallet kept in this browser, labelled as such.
import { useState } from 'react';
import { hasInjectedProvider } from '../wallet/wallet';
import { useSession } from '../session';
import { ErrorBox } from './status';

export function WalletBadge() {
  const { wallet, connectBrowserWallet, switchToDevelopmentWallet } = useSession();
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
      <ErrorBox error={error} />
    </div>
  );
}
