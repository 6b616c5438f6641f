// Sign-in benchmark: time to healthy on a cold and a warm start, the latency of sequential
// sign-ins and token-checked calls, what the token check costs per request (gateway and auth
// CPU from /proc: with BENCH_BASE=<revision before sign-out-everywhere>, that build beside
// this one, runs alternating), and sign-in latency while one address fires a burst of
// registrations (each would cost an argon2 hash without the per-address limit).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  alternating,
  benchTargets,
  CLOCK_TICKS,
  cpuTicks,
  distinctPids,
  loadCost,
  stackPids,
} from './measure.mjs';
import { freePort, sequential, startSeedableStack, startStack } from './stack.mjs';

const ADMIN = { username: 'benchadmin', password: 'bench-password-123' };
const BURST = Number(process.env.BENCH_REGISTER_BURST ?? 200);

const signIn = (baseUrl) =>
  fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  }).then(async (response) => {
    if (response.status !== 200) throw new Error(`login answered ${response.status}`);
    return response.json();
  });

async function startTimes() {
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-auth-'));
  const port = await freePort();
  const env = { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password };
  try {
    const cold = await startStack({ dataDir, port, env });
    await cold.stop();
    const warm = await startStack({ dataDir, port, env });
    const { token } = await signIn(warm.baseUrl);
    const logins = await sequential(200, () => signIn(warm.baseUrl));
    const users = await sequential(200, async () => {
      const response = await fetch(`${warm.baseUrl}/api/auth/users`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (response.status !== 200) throw new Error(`users answered ${response.status}`);
      await response.arrayBuffer();
    });
    await warm.stop();
    return {
      coldStartToHealthyMs: Math.round(cold.msToHealthy),
      warmStartToHealthyMs: Math.round(warm.msToHealthy),
      loginLatencyMs: logins,
      usersLatencyMs: users,
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 40);

/** SIGN_INS sequential sign-ins: per second, and the servers' CPU ms per 1,000 (loadCost's shape). */
async function signInCost(target) {
  const pids = Object.values(distinctPids(target.pids));
  const before = await Promise.all(pids.map(cpuTicks));
  const started = performance.now();
  for (let i = 0; i < SIGN_INS; i++) await signIn(target.stack.baseUrl);
  const seconds = (performance.now() - started) / 1000;
  const ticks = (await Promise.all(pids.map(cpuTicks))).reduce((sum, t, i) => sum + t - before[i], 0);
  return {
    requestsPerSecond: Math.round((SIGN_INS / seconds) * 10) / 10,
    cpuMsPer1000: Math.round(((ticks * (1000 / CLOCK_TICKS)) / SIGN_INS) * 1000),
  };
}

/** Sign-in latency alone, then while BURST registrations from one address run 20 at a time. */
async function signInDuringBurst(baseUrl) {
  const idle = await sequential(30, () => signIn(baseUrl));
  const statuses = {};
  let next = 0;
  let done = false;
  const register = async () => {
    while (next < BURST) {
      const i = next++;
      const response = await fetch(`${baseUrl}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          username: `burst${Date.now().toString(36)}${i}`,
          password: 'burst-password-1',
        }),
      });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  };
  const started = performance.now();
  const burst = Promise.all(Array.from({ length: 20 }, register)).then(() => (done = true));
  const during = [];
  while (!done) {
    const t0 = performance.now();
    await signIn(baseUrl);
    during.push(performance.now() - t0);
  }
  await burst;
  during.sort((a, b) => a - b);
  const at = (p) => Math.round(during[Math.min(during.length - 1, Math.ceil((p / 100) * during.length) - 1)]);
  return {
    idleSignInMs: idle,
    duringBurst: { signIns: during.length, p50: at(50), p95: at(95), max: Math.round(during.at(-1)) },
    burstMs: Math.round(performance.now() - started),
    registrationStatuses: statuses,
  };
}

export async function benchAuth() {
  const results = { ...(await startTimes()) };
  const running = [];
  try {
    for (const target of benchTargets()) {
      const stack = await startSeedableStack(
        'auth',
        {
          ADMIN_USERNAME: ADMIN.username,
          ADMIN_PASSWORD: ADMIN.password,
        },
        target.root,
      );
      const children = await stackPids(stack);
      const { token } = await signIn(stack.baseUrl);
      running.push({ ...target, stack, token, pids: { gateway: children.gateway, auth: children.auth } });
    }
    // A token-checked call (GET /api/auth/users, admin): gateway and auth CPU per 1,000.
    results.tokenCheckedCall = await alternating(running, (target) =>
      loadCost(`${target.stack.baseUrl}/api/auth/users`, target.pids, {
        headers: { authorization: `Bearer ${target.token}` },
      }),
    );
    // A sign-in (argon2id verify, session, token): CPU ms per sign-in of the stack's servers, from /proc.
    results.signIn = await alternating(running, (target) => signInCost(target));
    results.signInDuringRegistrationBurst = {};
    for (const target of running)
      results.signInDuringRegistrationBurst[target.name] = await signInDuringBurst(target.stack.baseUrl);
    return results;
  } finally {
    await Promise.all(running.map((t) => t.stack.stop()));
  }
}
