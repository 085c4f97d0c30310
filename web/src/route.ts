// Hash routes, so the exchange serves one static page and every view has a link that survives a reload.
import { useEffect, useState } from 'react';

export type Route =
  | { page: 'home' }
  | { page: 'fixture'; eventId: string }
  | { page: 'market'; marketHash: string }
  | { page: 'account' }
  | { page: 'console' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'fixture' && parts[1]) return { page: 'fixture', eventId: parts[1] };
  if (parts[0] === 'market' && parts[1]) return { page: 'market', marketHash: parts[1] };
  if (parts[0] === 'account') return { page: 'account' };
  if (parts[0] === 'console') return { page: 'console' };
  return { page: 'home' };
}

export const linkTo = {
  home: () => '#/',
  fixture: (eventId: string) => `#/fixture/${encodeURIComponent(eventId)}`,
  market: (marketHash: string) => `#/market/${marketHash}`,
  account: () => '#/account',
  console: () => '#/console',
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => {
      setRoute(parseRoute(location.hash));
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
