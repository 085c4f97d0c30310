import { describe, expect, it } from 'vitest';
import { asyncQueries } from './async-queries.js';

class Counter {
  readonly inner = { double: (n: number) => n * 2 };
  private n = 1;
  next(by: number): number {
    this.n += by;
    return this.n;
  }
  fail(): number {
    throw new Error('refused');
  }
}

describe('asyncQueries', () => {
  it('answers each method and sub-object method as a promise of what the object answers, with its own `this`', async () => {
    const port = asyncQueries(new Counter());
    const pending = port.next(2);
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe(3);
    expect(await port.next(1)).toBe(4);
    expect(await port.inner.double(21)).toBe(42);
  });

  it('turns a thrown error into a rejection, never a throw at the call', async () => {
    const port = asyncQueries(new Counter());
    let pending: Promise<number> | undefined;
    expect(() => (pending = port.fail())).not.toThrow();
    await expect(pending).rejects.toThrow('refused');
  });
});
