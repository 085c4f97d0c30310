import { describe, expect, it } from 'vitest';
import { ReadSideWait } from './read-side-wait.js';

/** A read side whose checkpoint the test moves, a clock that moves only when the wait sleeps, and the logs. */
function setUp(projected: number) {
  const state = { projected, clock: 0, readings: 0 };
  const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
  const infos: string[] = [];
  /** Called on each sleep (at the clock after it): lets a test move the read side as time passes. */
  let onSleep: (clock: number) => void = () => {};
  const wait = new ReadSideWait({
    projectedPosition: () => {
      state.readings++;
      return Promise.resolve(state.projected);
    },
    pollMs: 100,
    warnAfterMs: 1000,
    now: () => state.clock,
    log: { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }), info: (_obj, msg) => infos.push(msg) },
    sleep: (ms) => {
      state.clock += ms;
      onSleep(state.clock);
      return Promise.resolve();
    },
  });
  return { state, warnings, infos, wait, whenSleeping: (f: (clock: number) => void) => (onSleep = f) };
}

describe('ReadSideWait: a takeover waits for the read side before the escrow is handed what is unpaid', () => {
  it('resolves at once, logging nothing and counting no wait, when the read side covers the position already', async () => {
    const { wait, warnings, infos, state } = setUp(42);
    expect(await wait.until(42, () => false)).toBe(true);
    expect([warnings, infos, state.readings, wait.waitedSeconds(), wait.behind()]).toEqual([[], [], 1, 0, 0]);
  });

  it('never resolves before the read side covers the position; warns past the bound, and again each bound, naming how far behind', async () => {
    const { wait, warnings, infos, state, whenSleeping } = setUp(30);
    const seen: [number, number][] = [];
    whenSleeping((clock) => {
      // The figures /metrics reads while the wait lasts.
      seen.push([wait.waitedSeconds(), wait.behind()]);
      if (clock === 1500) state.projected = 45;
      // Covers 49 only: one short of 50, still waiting.
      if (clock === 2500) state.projected = 49;
      if (clock === 3000) state.projected = 50;
    });
    expect(await wait.until(50, () => false)).toBe(true);
    // Readings at 0, 100, ..., 3000: the last one found 50.
    expect([state.readings, state.clock]).toEqual([31, 3000]);
    expect(warnings).toEqual([
      {
        obj: { through: 50, projected: 30, behind: 20, waitedMs: 1000 },
        msg: "the escrow's unpaid refunds and positions wait for the read side: it covers position 30, 20 behind 50, after 1 s (is the projector running?); fills settle meanwhile",
      },
      {
        obj: { through: 50, projected: 45, behind: 5, waitedMs: 2000 },
        msg: "the escrow's unpaid refunds and positions wait for the read side: it covers position 45, 5 behind 50, after 2 s (is the projector running?); fills settle meanwhile",
      },
    ]);
    expect(infos).toEqual(['the read side covers position 50: unpaid refunds and positions handed to the escrow after 3 s']);
    // At the first sleep (clock 100) it had waited 0.1 s, 20 behind; after 45 was read (clock 1600), 5; after 49, 1.
    expect(seen[0]).toEqual([0.1, 20]);
    expect(seen[15]).toEqual([1.6, 5]);
    expect(seen.at(-1)).toEqual([3, 1]);
    // Over: nothing is waited for any more.
    expect([wait.waitedSeconds(), wait.behind()]).toEqual([0, 0]);
  });

  it('gives up (false: nothing handed over) once the session ends, and then counts no wait', async () => {
    const { wait, warnings, state, whenSleeping } = setUp(10);
    let ended = false;
    whenSleeping((clock) => (ended = clock >= 500));
    expect(await wait.until(11, () => ended)).toBe(false);
    expect([state.readings, warnings, wait.waitedSeconds(), wait.behind()]).toEqual([5, [], 0, 0]);
  });
});
