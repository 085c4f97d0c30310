// The page shell: header with navigation and wallet, then the page of the current route.
import { WalletBadge } from './components/wallet-badge';
import { ConnectionState } from './components/connection-state';
import { BetSlipPanel } from './components/bet-slip';
import { AccountPage } from './pages/account';
import { ConsolePage } from './pages/console';
import { FixturePage } from './pages/fixture';
import { HomePage } from './pages/home';
import { MarketPage } from './pages/market';
import { linkTo, useRoute, type Route } from './route';

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'fixture':
      return <FixturePage eventId={route.eventId} />;
    case 'market':
      return <MarketPage marketHash={route.marketHash} />;
    case 'account':
      return <AccountPage />;
    case 'console':
      return <ConsolePage />;
    default:
      return <HomePage />;
  }
}

export function App() {
  const route = useRoute();
  const current = (page: Route['page']) => (route.page === page ? 'page' : undefined);
  return (
    <>
      <header>
        <a className="brand" href={linkTo.home()}>
          Oddex
        </a>
        <nav>
          <a href={linkTo.home()} aria-current={current('home')}>
            Markets
          </a>
          <a href={linkTo.account()} aria-current={current('account')}>
            My account
          </a>
          <a href={linkTo.console()} aria-current={current('console')}>
            Console
          </a>
        </nav>
        <ConnectionState />
        <WalletBadge />
      </header>
      <main key={JSON.stringify(route)}>
        <Page route={route} />
      </main>
      {/* Outside the routed page: the slip and a parlay in progress stay while the bettor browses. */}
      <aside className="slip-area">
        <BetSlipPanel />
      </aside>
    </>
  );
}
