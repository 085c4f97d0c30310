// A minimal typed event emitter (no node:events, so the client runs in browsers unchanged).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;

export class Emitter<Events extends Record<keyof Events, Listener>> {
  private readonly listeners = new Map<keyof Events, Set<Listener>>();

  on<E extends keyof Events>(event: E, listener: Events[E]): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  protected emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }
}
