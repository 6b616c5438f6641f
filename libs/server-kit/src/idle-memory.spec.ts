import { readFileSync } from 'node:fs';
import { idleReleaseDecider, memoryRelease } from './idle-memory.js';

/** Writes `count` malloc'd blocks, drops them, and answers the anonymous memory held just before. */
function allocateAndDrop(count: number, size: number): number {
  const blocks = Array.from({ length: count }, () => Buffer.allocUnsafeSlow(size).fill(1));
  return blocks.length && anonymousKb();
}

const anonymousKb = () =>
  Number(/^Pss_Anon:\s+(\d+)/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))![1]);

const MB = 1024 ** 2;

describe('releasing memory once a burst of work is over', () => {
  const policy = {
    checkEveryMs: 5000,
    burstCpuMs: 1000,
    burstGrowthBytes: 16 * MB,
    quietShare: 0.05,
    quietChecks: 1,
  };

  it('releases after a burst, at the first quiet check, and not again until the next burst', () => {
    const due = idleReleaseDecider(policy);
    // CPU time (ms) at each check: 4.8 s of work, quiet, 0.7 s of work (under a burst), quiet,
    // then 1.5 s more.
    const checks = [0, 2000, 4000, 4800, 4810, 4820, 5200, 5500, 5505, 7000, 7010];
    expect(checks.map((cpu) => due(cpu, 100 * MB))).toEqual([
      false, // the first look
      false, // busy
      false,
      false, // 800 ms in 5 s: not quiet yet
      true, // quiet after 4.8 s of work
      false, // quiet, nothing since
      false, // busy
      false,
      false, // quiet, but 685 ms is no burst
      false, // busy
      true, // quiet after 2.2 s of work since the release
    ]);
  });

  it('memory grown by 16 MB over its lowest makes a burst too, with little CPU (a photo processed by libvips)', () => {
    const due = idleReleaseDecider(policy);
    // CPU barely moves; memory: 90 MB, 120 MB during the photo, still 120 MB once quiet, then 95 after the release.
    const checks: [number, number][] = [
      [0, 90],
      [300, 120],
      [310, 120],
      [320, 95],
      [330, 105],
      [340, 112],
    ];
    expect(checks.map(([cpu, mb]) => due(cpu, mb * MB))).toEqual([false, false, true, false, false, true]);
  });

  it('with quietChecks 3 it waits for three quiet checks in a row: a shorter pause between bursts keeps the warm heap', () => {
    const due = idleReleaseDecider({ ...policy, quietChecks: 3 });
    // 2 s of work, a 10 s pause (two quiet checks), 2 s more, then quiet for good.
    const checks = [0, 2000, 2001, 2002, 4000, 4001, 4002, 4003, 4004];
    expect(checks.map((cpu) => due(cpu, 100 * MB))).toEqual([
      false,
      false, // busy
      false, // quiet 1
      false, // quiet 2: the pause ends before a third
      false, // busy again
      false, // quiet 1
      false, // quiet 2
      true, // quiet 3: released
      false, // nothing since
    ]);
  });

  it('a process that only trickles never releases, and one that never rests never releases', () => {
    const trickle = idleReleaseDecider(policy);
    expect(Array.from({ length: 20 }, (_, i) => trickle(i * 20, 100 * MB + (i * MB) / 2)).some(Boolean)).toBe(
      false,
    );
    const busy = idleReleaseDecider(policy);
    expect(Array.from({ length: 20 }, (_, i) => busy(i * 4000, (100 + 10 * i) * MB)).some(Boolean)).toBe(
      false,
    );
  });

  // Real memory: blocks malloc'd and freed stay with the process until the release.
  it('gives freed memory back to the system', async () => {
    const release = memoryRelease();
    expect(release).not.toBeNull(); // glibc and koffi's linux build are on this machine
    const held = allocateAndDrop(40_000, 4000);
    await release!();
    const after = anonymousKb();
    // 160 MB were written; most of it goes back (V8's and the runner's own heaps move too).
    expect(held - after).toBeGreaterThan(100 * 1024);
  });
});
