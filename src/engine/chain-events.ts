// A block range of the chain applied to the engine, in log order: wallets moved, allowances set, the exchange's fills
// executed or failed, the escrow's payouts of positions and refunds (their transactions go on the trades and
// refunds). Exposure is enforced once the whole range applied: a fill's stakes leave the wallet just before its
// execution frees the commitment they covered.
import type { ChangeLog } from './change-log.js';
import type { OrderLifecycle } from './order-lifecycle.js';
import type { Settlement } from './settlement.js';
import type { ChainExecution, Command } from './types.js';
import type { Wallets } from './wallets/wallets.js';

/** The parts a block range touches, and the engine's confirmation of a fill. */
export interface ChainEventParts {
  wallets: Wallets;
  settlement: Settlement;
  lifecycle: OrderLifecycle;
  log: ChangeLog;
  confirmFill(fillHash: string, at: number, execution: ChainExecution): void;
}

/** Applies the range; returns the last block it covers (chain adapters resume after it). */
export function applyChainEvents(parts: ChainEventParts, cmd: Extract<Command, { kind: 'chainEvents' }>): number {
  const { wallets, settlement, lifecycle, log } = parts;
  const moved = new Set<string>();
  for (const e of cmd.entries) {
    switch (e.kind) {
      case 'wallet':
        wallets.walletMoved(e.address, e.delta, e.allowanceSpent ?? 0n);
        moved.add(e.address);
        break;
      case 'approval':
        wallets.approved(e.owner, e.amount);
        moved.add(e.owner);
        break;
      case 'fill':
        parts.confirmFill(e.fillHash, cmd.at, e.execution);
        break;
      case 'claim':
        if (settlement.isReported(e.marketHash)) {
          log.emit({ type: 'positionPaidOnChain', marketHash: e.marketHash, bettor: e.bettor, txHash: e.txHash, at: cmd.at });
        }
        break;
      case 'refund':
        log.emit({ type: 'refundPaidOnChain', refundId: e.refundId, txHash: e.txHash, at: cmd.at });
        break;
    }
  }
  for (const address of moved) {
    log.touch(address);
    lifecycle.enforceExposure(address, cmd.at);
  }
  return cmd.toBlock;
}
