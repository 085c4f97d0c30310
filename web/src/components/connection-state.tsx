// The realtime connection's state in the header, on every page: what is shown updates by itself only while "live".
import { useEffect, useState } from 'react';
import type { State } from 'centrifuge';
import { useSession } from '../session';

const TEXT: Record<State, string> = { connected: 'live', connecting: 'reconnecting…', disconnected: 'offline' };

export function ConnectionState() {
  const { realtime } = useSession();
  const client = realtime.centrifuge;
  const [state, setState] = useState<State>(client.state);
  useEffect(() => {
    const update = () => setState(client.state);
    update();
    client.on('state', update);
    return () => void client.removeListener('state', update);
  }, [client]);
  const feed = state === 'connected' ? 'live' : 'reconnecting';
  return (
    <span className={`feed ${feed}`} role="status" data-connection={state} title="Prices, books and your bets update by themselves while live">
      {TEXT[state]}
    </span>
  );
}
