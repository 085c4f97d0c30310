import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { SessionProvider } from './session';
import { BetSlipProvider } from './bet-slip-state';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <SessionProvider>
      <BetSlipProvider>
        <App />
      </BetSlipProvider>
    </SessionProvider>
  </StrictMode>,
);
