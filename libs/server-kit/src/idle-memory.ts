import { createRequire } from 'node:module';
import { setTimeout as delay } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * After a burst of work (an import, an upload's pictures, an export, a crowd of readers) a Node
 * process keeps much of what it freed: V8 keeps its heap's emptied pages, and glibc keeps freed
 * blocks inside its heaps, giving back only what lies at the top of each. Once the process has
 * been quiet for a moment after such a burst, this collects the garbage and asks glibc for every
 * free page back (`malloc_trim`, through the koffi FFI): the servers' process under `npm start`
 * held 182 MB (anonymous PSS) after an import and an upload, 148 MB after one trim. A burst is
 * CPU time, or memory grown (a photo's pixels cost little CPU in this process: libvips' threads,
 * ffmpeg apart). Quiet processes are left alone, so a process that is not working pays nothing.
 */
export interface IdleMemoryPolicy {
  /** How often the process's CPU time and memory are looked at. */
  checkEveryMs: number;
  /** CPU time since the last release that makes a burst worth releasing after. */
  burstCpuMs: number;
  /** Growth of the resident memory over its lowest since the last release that makes a burst too. */
  burstGrowthBytes: number;
  /** A check interval with less CPU time than this share of it counts as quiet. */
  quietShare: number;
  /**
   * Quiet checks in a row before a release. A release costs the next burst a warm-up (the heap
   * regrown, code compiled again): a page bench's gateway spent 40 % more CPU per request in the
   * first 5 s after one. A minute of quiet spares traffic that only pauses that cost.
   */
  quietChecks: number;
}

export const IDLE_MEMORY_POLICY: IdleMemoryPolicy = {
  checkEveryMs: 5000,
  burstCpuMs: 1000,
  burstGrowthBytes: 16 * 1024 ** 2,
  quietShare: 0.05,
  quietChecks: 12,
};

/**
 * Decides at each check, from the process's CPU time (ms) and resident memory (bytes) then:
 * release when the work done or the memory grown since the last release makes a burst, and the
 * last `quietChecks` intervals were quiet.
 */
export function idleReleaseDecider(policy: IdleMemoryPolicy = IDLE_MEMORY_POLICY) {
  let lastCheck: number | undefined;
  let sinceRelease = 0;
  let lowest = Infinity;
  let quiet = 0;
  return (cpuMs: number, residentBytes: number): boolean => {
    const interval = lastCheck === undefined ? 0 : cpuMs - lastCheck;
    lastCheck = cpuMs;
    sinceRelease += interval;
    lowest = Math.min(lowest, residentBytes);
    quiet = interval < policy.checkEveryMs * policy.quietShare ? quiet + 1 : 0;
    const burst = sinceRelease >= policy.burstCpuMs || residentBytes - lowest >= policy.burstGrowthBytes;
    if (!burst || quiet < policy.quietChecks) return false;
    sinceRelease = 0;
    lowest = Infinity; // the next check sees what the release left
    return true;
  };
}

type Release = () => Promise<void>;
interface GcOptions {
  type: 'major';
  execution: 'sync';
  flavor: 'last-resort';
}
const SWEEP_MS = 500;
let release: Release | null | undefined;

/**
 * A full garbage collection, then glibc's trim; null where either cannot run (a C library other
 * than glibc, or no koffi build for this platform): the process then keeps its memory as before.
 */
export function memoryRelease(): Release | null {
  if (release !== undefined) return release;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
    // V8 gives `gc` to code only when asked at start; asked now, a fresh context has it.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: GcOptions) => void;
    // The collection V8 makes under memory pressure ("last resort"): it compacts the heap and
    // hands its emptied pages back, where a regular full collection keeps them committed (a
    // 250 MB heap with 32 MB live: 230 MB kept by a regular one, 34 MB by this). About 100 ms,
    // once the process is quiet. V8 then frees the dead Buffers' memory from a thread of its own: the
    // trim waits for that.
    release = async () => {
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      await delay(SWEEP_MS);
      trim(0);
    };
  } catch {
    release = null;
  }
  return release;
}

let watching = false;

/** Starts the idle check once per process (several services may share one under `npm start`). */
export function releaseMemoryWhenIdle(policy: IdleMemoryPolicy = IDLE_MEMORY_POLICY): void {
  if (watching || !memoryRelease()) return;
  watching = true;
  const due = idleReleaseDecider(policy);
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  due(cpuMs(), process.memoryUsage.rss());
  setInterval(() => {
    if (due(cpuMs(), process.memoryUsage.rss())) void memoryRelease()?.();
  }, policy.checkEveryMs).unref();
}
