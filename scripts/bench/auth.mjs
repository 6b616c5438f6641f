// Sign-in benchmark (issue 2): time to healthy on a cold and a warm start, and the
// latency of 200 sequential logins and 200 token-verified GET /api/auth/users calls.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, sequential, startStack } from './stack.mjs';

export async function benchAuth() {
  const dataDir = await mkdtemp(join(tmpdir(), 'blog-bench-auth-'));
  const port = await freePort();
  const admin = { username: 'benchadmin', password: 'bench-password-123' };
  const env = { ADMIN_USERNAME: admin.username, ADMIN_PASSWORD: admin.password };
  try {
    const cold = await startStack({ dataDir, port, env });
    await cold.stop();
    const warm = await startStack({ dataDir, port, env });
    const login = () =>
      fetch(`${warm.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(admin),
      }).then(async (response) => {
        if (response.status !== 200) throw new Error(`login answered ${response.status}`);
        return response.json();
      });
    const { token } = await login();
    const logins = await sequential(200, login);
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
