import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stopTestServers } from './global-setup.mjs';

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const signal = (pid, name) => {
  if (pid > 0 && alive(pid)) process.kill(pid, name);
};
const waitGone = async (pids, ms) => {
  const deadline = Date.now() + ms;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
};

/**
 * Stops launchers the e2e tests left running (a suite that failed before its afterAll, a hung
 * worker): SIGTERM, so each stops its own services and database. One still up after 15 s is
 * killed, and what it started (named in its DATA_DIR) with it, so nothing outlives the run.
 */
async function stopLeftLaunchers() {
  const folder = process.env.BLOG_TEST_PIDS_DIR;
  if (!folder) return;
  const left = [];
  for (const name of await readdir(folder).catch(() => [])) {
    const pid = Number(name);
    if (alive(pid)) left.push({ pid, dataDir: await readFile(join(folder, name), 'utf8') });
  }
  for (const { pid } of left) signal(pid, 'SIGTERM');
  await waitGone(
    left.map((l) => l.pid),
    15_000,
  );
  for (const { pid, dataDir } of left.filter((l) => alive(l.pid))) {
    process.kill(pid, 'SIGKILL');
    const state = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8').catch(() => '{}'));
    for (const child of Object.values(state.children ?? {})) signal(Number(child), 'SIGKILL');
    const postmaster = await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => '');
    signal(Number(postmaster.split('\n')[0]), 'SIGINT'); // PostgreSQL's fast shutdown
  }
  await rm(folder, { recursive: true, force: true });
}

export default async function globalTeardown() {
  await stopLeftLaunchers();
  await stopTestServers();
}
