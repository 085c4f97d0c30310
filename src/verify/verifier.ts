// What the trading routes use: verify a command's signatures in the pool, then continue in client order.
import { ClientOrder } from './client-order.js';
import type { Verified, VerifyJob } from './jobs.js';
import type { VerifyPool, VerifyPoolStats } from './pool.js';

export class SignatureVerifier {
  private readonly order = new ClientOrder();

  constructor(private readonly pool: VerifyPool) {}

  /** Starts the worker threads in the background. */
  start(): void {
    this.pool.start();
  }

  /**
   * Verifies `jobs` off the writer thread, then runs `then(results)` synchronously once every earlier command
   * of the same `clients` (addresses, any case) has run its own continuation.
   */
  inClientOrder<R>(clients: readonly string[], jobs: readonly VerifyJob[], then: (results: Verified[]) => R): Promise<Awaited<R>> {
    return this.order.run(
      clients.map((c) => c.toLowerCase()),
      this.pool.verify(jobs),
      then,
    );
  }

  /** Worker threads up and answering. */
  get liveWorkers(): number {
    return this.pool.liveWorkers;
  }

  get stats(): VerifyPoolStats {
    return this.pool.stats;
  }

  get waitingClients(): number {
    return this.order.waitingClients;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
