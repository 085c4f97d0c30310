// Verification finishes out of order (two workers, batches of different sizes), but the engine must see one
// client's commands in the order they arrived. Each command waits for the earlier commands of the same clients
// to have been handed on before its own continuation runs.

export class ClientOrder {
  /** Per client key: settles once the latest command of that client has been handed on (or failed). */
  private readonly tails = new Map<string, Promise<void>>();

  /** Clients with a command still waiting (tests: must drain to zero). */
  get waitingClients(): number {
    return this.tails.size;
  }

  /**
   * Runs `then(value)` once `work` has resolved and every earlier command of any of `clients` has run its own
   * continuation. `then` runs synchronously at that point, so whatever it starts (an engine submit) is ordered.
   */
  run<T, R>(clients: readonly string[], work: Promise<T>, then: (value: T) => R): Promise<Awaited<R>> {
    const keys = [...new Set(clients)];
    const earlier = keys.flatMap((k) => this.tails.get(k) ?? []);
    let handedOn!: () => void;
    const turn = new Promise<void>((resolve) => (handedOn = resolve));
    for (const k of keys) this.tails.set(k, turn);
    const release = () => {
      handedOn();
      for (const k of keys) if (this.tails.get(k) === turn) this.tails.delete(k);
    };
    const waitForEarlier = earlier.length === 0 ? work : Promise.all(earlier).then(() => work);
    return waitForEarlier.then(
      (value) => {
        try {
          return then(value) as Awaited<R>;
        } finally {
          release();
        }
      },
      (err: unknown) => {
        release();
        throw err;
      },
    );
  }
}
