// A rising position told to someone else (a projector's thread or process) at most once per turn of the event loop:
// a turn that acknowledges many groups sends one message, with the highest.

export class HighestPerTurn {
  private value = 0;
  private scheduled = false;

  constructor(private readonly send: (highest: number) => void) {}

  /** The highest position offered so far (0: none). */
  get highest(): number {
    return this.value;
  }

  /** Offers a position: sent at the end of this turn if it is higher than any before. */
  offer(position: number): void {
    if (position <= this.value) return;
    this.value = position;
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.send(this.value);
    });
  }
}
