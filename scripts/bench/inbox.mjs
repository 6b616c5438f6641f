// `npm run bench -- inbox`: what a stranger's inbox POSTs cost the blog, on the embedded stack
// (`npm start`'s one process). With BENCH_BASE=<revision> that revision's build runs beside this
// one on other ports, in alternating rounds.
//   1. CPU per refused POST: unsigned bodies of about 164 KB holding 2,500 tiny Hashtag objects
//      (the probe that took the blog down), sent one after another from one address; the stack's
//      CPU ticks from /proc/PID/stat (every process under the launcher, PostgreSQL included)
//      divided by the count.
//   2. Reads while one address spends its allowance of such POSTs (300 a minute, sent 4 at a
//      time): GET /api/posts?limit=10 p50/p95 before and during, and the reads that failed.
// Figures only: nothing here asserts (the suite holds the limits, in CPU time).
import { readdir, readFile } from 'node:fs/promises';
import { FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE } from '@blog/contracts';
import { CLOCK_TICKS, ROUNDS, benchTargets } from './measure.mjs';
import { percentile, startSeedableStack } from './stack.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SIZES = {
  /** POSTs per CPU round: a base build spends about half a second on each. */
  cpuPosts: env('BENCH_INBOX_CPU_POSTS', 30),
  /** The flood: one address's whole minute. */
  floodPosts: env('BENCH_INBOX_FLOOD_POSTS', FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE),
  floodConcurrency: 4,
  baselineSeconds: env('BENCH_INBOX_BASELINE_SECONDS', 10),
};
const READ_EVERY_MS = 10;
const READERS = 2;
const round1 = (v) => Math.round(v * 10) / 10;

/**
 * The probe's body: 2,500 Hashtag objects. With `members` 3 (type, name, href: 10,000 values
 * and more, about 164 KB, the probe that took the blog down) a gateway that counts values
 * refuses it by its shape; with 2 (7,500 values, padded to about 190 KB) it reaches the
 * signature check.
 */
function floodBody(origin, members) {
  return JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: 'https://attacker.example/activities/1',
    type: 'Create',
    actor: 'https://attacker.example/users/x',
    object: {
      id: 'https://attacker.example/notes/1',
      type: 'Note',
      attributedTo: 'https://attacker.example/users/x',
      inReplyTo: `${origin}/post/1`,
      content: 'x',
      tag: Array.from({ length: 2500 }, (_, i) =>
        members === 3
          ? { type: 'Hashtag', name: `#t${i}`, href: `https://attacker.example/tags/t${i}` }
          : { type: 'Hashtag', name: `#tag${i}${'x'.repeat(40)}` },
      ),
    },
  });
}

/** CPU ticks of every process under the launcher (the servers, PostgreSQL and its backends). */
async function stackTicks(launcherPid) {
  const table = [];
  for (const entry of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.push({ pid: Number(entry), ppid: Number(f[1]), ticks: +f[11] + +f[12] + +f[13] + +f[14] });
  }
  const inStack = new Set([launcherPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table)
      if (!inStack.has(p.pid) && inStack.has(p.ppid)) {
        inStack.add(p.pid);
        grew = true;
      }
  }
  return table.filter((p) => inStack.has(p.pid)).reduce((sum, p) => sum + p.ticks, 0);
}

const inboxPost = (stack, body) =>
  fetch(`${stack.baseUrl}/ap/inbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/activity+json' },
    body,
  }).then(async (r) => (await r.arrayBuffer(), r.status));

/** READERS loops reading the post list every READ_EVERY_MS until stop(): latencies (ms) and failures. */
function reader(stack) {
  const times = [];
  let failures = 0;
  let reading = true;
  const loop = async () => {
    while (reading) {
      const t0 = performance.now();
      try {
        const r = await fetch(`${stack.baseUrl}/api/posts?limit=10`);
        await r.arrayBuffer();
        if (r.status !== 200) failures++;
      } catch {
        failures++;
      }
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, READ_EVERY_MS));
    }
  };
  const done = Promise.all(Array.from({ length: READERS }, loop));
  return {
    async stop() {
      reading = false;
      await done;
      times.sort((a, b) => a - b);
      return {
        reads: times.length,
        p50: round1(percentile(times, 50)),
        p95: round1(percentile(times, 95)),
        failures,
      };
    },
  };
}

async function cpuPerRefusal(stack, body) {
  const statuses = {};
  const before = await stackTicks(stack.child.pid);
  for (let i = 0; i < SIZES.cpuPosts; i++) {
    const status = await inboxPost(stack, body);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const ticks = (await stackTicks(stack.child.pid)) - before;
  return { cpuMsEach: round1((ticks * (1000 / CLOCK_TICKS)) / SIZES.cpuPosts), statuses };
}

async function readsDuringFlood(stack, body) {
  const baseline = reader(stack);
  await new Promise((r) => setTimeout(r, SIZES.baselineSeconds * 1000));
  const before = await baseline.stop();
  const during = reader(stack);
  const statuses = {};
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: SIZES.floodConcurrency }, async () => {
      while (next < SIZES.floodPosts) {
        next++;
        const status = await inboxPost(stack, body).catch(() => 'error');
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const floodSeconds = round1((performance.now() - started) / 1000);
  return {
    before,
    during: await during.stop(),
    flood: { posts: SIZES.floodPosts, seconds: floodSeconds, statuses },
  };
}

export async function benchInbox() {
  const targets = benchTargets();
  const stacks = [];
  try {
    for (const target of targets) {
      const stack = await startSeedableStack('inbox', { OUTBOUND_ALLOW: '127.0.0.1' }, target.root);
      stacks.push({
        target,
        stack,
        body: floodBody(stack.baseUrl, 3),
        paddedBody: floodBody(stack.baseUrl, 2),
      });
    }
    const cpu = { probe: {}, paddedProbe: {} };
    for (const t of targets) {
      cpu.probe[t.name] = [];
      cpu.paddedProbe[t.name] = [];
    }
    for (let round = 0; round < ROUNDS; round++)
      for (const { target, stack, body, paddedBody } of round % 2 ? [...stacks].reverse() : stacks) {
        cpu.probe[target.name].push(await cpuPerRefusal(stack, body));
        cpu.paddedProbe[target.name].push(await cpuPerRefusal(stack, paddedBody));
      }
    const reads = { probe: {}, paddedProbe: {} };
    // Each flood starts in a new clock minute: the per-address count starts over.
    const nextMinute = () => new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 100));
    for (const { target, stack, body, paddedBody } of stacks) {
      await nextMinute();
      reads.probe[target.name] = await readsDuringFlood(stack, body);
      await nextMinute();
      reads.paddedProbe[target.name] = await readsDuringFlood(stack, paddedBody);
    }
    return {
      probes: {
        probe: { bytes: stacks[0].body.length, hashtags: 2500, membersEach: 3 },
        paddedProbe: { bytes: stacks[0].paddedBody.length, hashtags: 2500, membersEach: 2 },
        cpuPostsPerRound: SIZES.cpuPosts,
      },
      cpuPerRefusedPost: cpu,
      readsWhileOneAddressFloods: reads,
    };
  } finally {
    for (const { stack } of stacks) await stack.stop();
  }
}
