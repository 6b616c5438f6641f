/**
 * On a Node.js older than engines.node, `npm start`, `npm test` and `npm run build` stop at
 * once with one line naming the version found, the version needed and how to get it: exit 1,
 * no stack trace, nothing started. An old Node is played by this Node with `process.version`
 * replaced before the script runs (`--import`), so the test needs no second Node installed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lowestAllowed, nodeVersionProblem } from '../../scripts/lib/check-node.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
const CHECK = 'node scripts/lib/check-node.mjs';

/** Runs a script under this Node pretending to be `version`. */
async function runAs(version: string | null, script: string, env: NodeJS.ProcessEnv = {}) {
  const pretend = `data:text/javascript,Object.defineProperty(process,'version',{value:'${version}'})`;
  const args = version ? ['--import', pretend, script] : [script];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 20_000, // a check that let the launcher through must not leave it running
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  return { code, stdout, stderr };
}

describe('the Node.js version check', () => {
  it('the project needs Node 24 or newer, and .nvmrc says 24', () => {
    expect(manifest.engines.node).toBe('>=24');
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe('24');
  });

  it('lets the needed version and newer ones through and names older ones', () => {
    expect(nodeVersionProblem('v24.0.0', '>=24')).toBeNull();
    expect(nodeVersionProblem('v24.21.0', '>=24')).toBeNull();
    expect(nodeVersionProblem('v26.1.0', '>=24')).toBeNull();
    expect(nodeVersionProblem('v23.11.1', '>=24')).toBe(
      'personal-blog needs Node.js >= 24 (found v23.11.1): install Node 24 LTS, e.g. nvm install 24 (or https://nodejs.org)',
    );
    expect(nodeVersionProblem('v24.4.9', '>=24.5')).toMatch(
      /^personal-blog needs Node\.js >= 24\.5\.0 \(found v24\.4\.9\)/,
    );
    expect(nodeVersionProblem('v24.5.0', '>=24.5')).toBeNull();
    expect(lowestAllowed('>=20.19')).toEqual([20, 19, 0]);
    expect(() => lowestAllowed('^24')).toThrow(/engines\.node must be/);
  });

  it('on Node 20 the check prints one line and exits 1', async () => {
    const { code, stdout, stderr } = await runAs('v20.20.2', 'scripts/lib/check-node.mjs');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'personal-blog needs Node.js >= 24 (found v20.20.2): install Node 24 LTS, e.g. nvm install 24 (or https://nodejs.org)\n',
    );
  });

  it('on this Node the check says nothing and lets the command run', async () => {
    expect(await runAs(null, 'scripts/lib/check-node.mjs')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('npm start on Node 20 stops before it builds or starts anything', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'old-node-')), 'data');
    try {
      const { code, stdout, stderr } = await runAs('v20.20.2', 'scripts/start.mjs', { DATA_DIR: dataDir });
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^personal-blog needs Node\.js >= 24 \(found v20\.20\.2\)/),
      ]);
      expect(existsSync(dataDir)).toBe(false); // the launcher makes DATA_DIR as it starts
    } finally {
      await rm(resolve(dataDir, '..'), { recursive: true, force: true });
    }
  });

  it('npm test and npm run build run the check first', () => {
    expect(manifest.scripts.pretest).toBe(CHECK);
    expect(manifest.scripts.prebuild).toBe(CHECK);
  });
});
