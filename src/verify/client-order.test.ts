import { describe, expect, it } from 'vitest';
import { ClientOrder } from './client-order.js';

/** A promise settled from outside, to finish "verification" in any order. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('ClientOrder', () => {
  it("hands one client's commands on in arrival order even when later ones verify first", async () => {
    const order = new ClientOrder();
    const handed: string[] = [];
    const a = deferred<string>();
    const b = deferred<string>();
    const c = deferred<string>();
    const runs = [a, b, c].map((d) => order.run(['0xmaker'], d.promise, (v) => handed.push(v)));
    c.resolve('c');
    b.resolve('b');
    await new Promise((r) => setImmediate(r));
    expect(handed).toEqual([]);
    a.resolve('a');
    await Promise.all(runs);
    expect(handed).toEqual(['a', 'b', 'c']);
    expect(order.waitingClients).toBe(0);
  });

  it('lets another client pass a slow one', async () => {
    const order = new ClientOrder();
    const handed: string[] = [];
    const slow = deferred<string>();
    const first = order.run(['0xslow'], slow.promise, (v) => handed.push(v));
    await order.run(['0xfast'], Promise.resolve('fast'), (v) => handed.push(v));
    expect(handed).toEqual(['fast']);
    slow.resolve('slow');
    await first;
    expect(handed).toEqual(['fast', 'slow']);
  });

  it('orders a command naming several clients after the earlier commands of each', async () => {
    const order = new ClientOrder();
    const handed: string[] = [];
    const x = deferred<string>();
    const y = deferred<string>();
    const runX = order.run(['0xx'], x.promise, (v) => handed.push(v));
    const runY = order.run(['0xy'], y.promise, (v) => handed.push(v));
    const both = order.run(['0xx', '0xy', '0xx'], Promise.resolve('both'), (v) => handed.push(v));
    x.resolve('x');
    await runX;
    await new Promise((r) => setImmediate(r));
    expect(handed).toEqual(['x']);
    y.resolve('y');
    await Promise.all([runY, both]);
    expect(handed).toEqual(['x', 'y', 'both']);
  });

  it('a failed verification or a throwing continuation releases the next command', async () => {
    const order = new ClientOrder();
    const handed: string[] = [];
    const failed = order.run(['0xm'], Promise.reject(new Error('bad job')), () => handed.push('never'));
    const throwing = order.run(['0xm'], Promise.resolve('t'), () => {
      throw new Error('bad signature');
    });
    const last = order.run(['0xm'], Promise.resolve('last'), (v) => handed.push(v));
    await expect(failed).rejects.toThrow('bad job');
    await expect(throwing).rejects.toThrow('bad signature');
    await last;
    expect(handed).toEqual(['last']);
    expect(order.waitingClients).toBe(0);
  });

  it("resolves with the continuation's own promise (the engine's durable answer)", async () => {
    const order = new ClientOrder();
    await expect(order.run(['0xm'], Promise.resolve(2), async (v) => v * 21)).resolves.toBe(42);
  });
});
