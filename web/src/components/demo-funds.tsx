// Demo mode's self-service test funds: a new wallet gets them from the exchange itself, not from an operator.
import { useState } from 'react';
import { exchange } from '../api/exchange';
import type { Balance, DemoFundsOffer } from '../api/types';
import { money } from '../format';
import { ErrorBox } from './status';

export function DemoFunds({ address, offer, empty, onGranted }: { address: string; offer: DemoFundsOffer; empty: boolean; onGranted(): void }) {
  const [busy, setBusy] = useState(false);
  const [granted, setGranted] = useState<Balance>();
  const [error, setError] = useState<unknown>();

  async function request() {
    setBusy(true);
    setError(undefined);
    // The line below the button answers this click: an earlier grant is no longer news once another is asked for.
    setGranted(undefined);
    try {
      setGranted(await exchange.requestDemoFunds(address));
      onGranted();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="notice">
      <p>
        {empty && 'This wallet has no funds yet. '}This is a demo exchange: get {money(offer.amount)} of test funds at a time, while the wallet holds at
        most {money(offer.maxBalance)}.
      </p>
      <button className="primary" disabled={busy} onClick={() => void request()}>
        Get demo funds
      </button>
      {granted && (
        <p role="status">
          Received {money(offer.amount)}. Your balance is now {money(granted.balance)}.
        </p>
      )}
      <ErrorBox error={error} />
    </div>
  );
}
