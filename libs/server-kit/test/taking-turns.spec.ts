import { TakingTurns } from '../src/taking-turns.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('TakingTurns', () => {
  it('runs at most its number at once and hands each freed turn to the longest waiting, in order', async () => {
    const turns = new TakingTurns(2, 10, 60_000);
    const first = await turns.turn();
    const second = await turns.turn();
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    const order: number[] = [];
    const waiting = [3, 4, 5].map((n) => turns.turn().then((end) => (order.push(n), end)));
    await tick();
    expect(order).toEqual([]);
    expect(turns.load).toEqual({ running: 2, waiting: 3 });
    first!();
    first!(); // ending a turn twice frees one slot, not two
    await tick();
    expect(order).toEqual([3]);
    expect(turns.load).toEqual({ running: 2, waiting: 2 });
    second!();
    await tick();
    expect(order).toEqual([3, 4]);
    const ends = await Promise.all(waiting.slice(0, 2));
    ends.forEach((end) => end!());
    await tick();
    expect(order).toEqual([3, 4, 5]);
    (await waiting[2])!();
    expect(turns.load).toEqual({ running: 0, waiting: 0 });
    // Free again: a newcomer runs at once.
    const again = await turns.turn();
    expect(turns.load).toEqual({ running: 1, waiting: 0 });
    again!();
  });

  it('tells a newcomer "no" at once when the line is full, and leaves the line as it was', async () => {
    const turns = new TakingTurns(1, 2, 60_000);
    const running = await turns.turn();
    const inLine = [turns.turn(), turns.turn()];
    await tick();
    const started = performance.now();
    expect(await turns.turn()).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(turns.load).toEqual({ running: 1, waiting: 2 });
    running!();
    (await inLine[0])!();
    (await inLine[1])!();
    expect(turns.load).toEqual({ running: 0, waiting: 0 });
  });

  it('gives up a wait after its longest, and a turn freed later goes to whoever still waits', async () => {
    const turns = new TakingTurns(1, 10, 100);
    const running = await turns.turn();
    const late = turns.turn();
    expect(await late).toBeNull();
    expect(turns.load).toEqual({ running: 1, waiting: 0 });
    const next = turns.turn();
    running!(); // to the one still waiting, not to the one that gave up
    const nextEnd = await next;
    expect(nextEnd).not.toBeNull();
    expect(turns.load).toEqual({ running: 1, waiting: 0 });
    nextEnd!();
    expect(turns.load).toEqual({ running: 0, waiting: 0 });
  });
});
