import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The database an operator's command (`npm run admin -- …`) works on: DATABASE_URL when set
 * (containers, a server of your own), else the running embedded PostgreSQL of `npm start` in
 * DATA_DIR (default ./data): its port from postmaster.pid, its password from DATA_DIR.
 */
export function operatorDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const dataDir = resolve(env.DATA_DIR ?? './data');
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile))
    throw new Error(`no running site database in ${dataDir}: start the site (npm start) or set DATABASE_URL`);
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
  } catch {
    throw new Error(
      `the site database in ${dataDir} is not running: start the site (npm start) or set DATABASE_URL`,
    );
  }
  const password = readFileSync(join(dataDir, 'postgres-password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port!.trim()}/blog`;
}
