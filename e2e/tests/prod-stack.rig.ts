/**
 * The production topology from real processes (`npm run stack:prod`) for prod-stack.spec.ts:
 * the launcher started in its own process group before the tests and stopped after them
 * (checking that every process it started and its folder are gone), a browser, and requests,
 * files and e-mails read through it.
 */
import { simpleParser } from 'mailparser';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = resolve(import.meta.dirname, '../..');
export const ADMIN = { username: 'prodadmin', password: 'prod-admin-password-1' };

/** What the launcher prints on its STACK line. */
export interface StackInfo {
  url: string;
  gateway: string;
  dir: string;
  s3Dir: string;
  mailDir: string;
  nats: string;
  pids: Record<string, number>;
}

export interface ProdStack {
  stack: StackInfo;
  browser: Browser | undefined;
  /** A request through nginx, with the bearer token when given: status, headers, JSON (or {}) and text. */
  api(
    path: string,
    init?: RequestInit & { token?: string },
  ): Promise<{ status: number; headers: Headers; json: Json; text: string }>;
  /** The admin's token, signed in through nginx. */
  signIn(): Promise<string>;
  /** Every file under `dir` (none when it does not exist). */
  filesUnder(dir: string): Promise<string[]>;
  /** The first e-mail the SMTP server kept that matches, waited for. */
  waitForMail(
    match: (text: string, to: string) => boolean,
    timeoutMs?: number,
  ): ReturnType<typeof simpleParser>;
}

/**
 * The file's production stack: started before its tests (and before any beforeAll declared after
 * this call), stopped after them; call it inside the suite's describe.
 */
export function useProdStack(): ProdStack {
  let launcher: ChildProcess | undefined;
  let output = '';

  /** SIGTERM to the script (it stops what it started); its whole process group SIGKILLed if it hangs. */
  async function stopLauncher() {
    if (!launcher?.pid || launcher.exitCode !== null) return;
    const exited = new Promise((done) => launcher!.once('exit', done));
    launcher.kill('SIGTERM');
    const timer = setTimeout(() => {
      try {
        process.kill(-launcher!.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 20_000);
    await exited;
    clearTimeout(timer);
  }

  const mails = async () => {
    const files = (await readdir(rig.stack.mailDir)).sort();
    return Promise.all(files.map(async (f) => simpleParser(await readFile(join(rig.stack.mailDir, f)))));
  };

  const rig: ProdStack = {
    async api(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      const response = await fetch(`${rig.stack.url}${path}`, { ...init, headers });
      const text = await response.text();
      let json: Json = {};
      try {
        json = JSON.parse(text) as Json;
      } catch {
        // not JSON
      }
      return { status: response.status, headers: response.headers, json, text };
    },
    async signIn() {
      const login = await rig.api('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      return login.json.token as string;
    },
    async filesUnder(dir) {
      if (!existsSync(dir)) return [];
      const entries = await readdir(dir, { recursive: true, withFileTypes: true });
      return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    },
    async waitForMail(match, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await mails()).find((m) => match(m.text ?? '', JSON.stringify(m.to ?? '')));
        if (found) return found;
        if (Date.now() > deadline) throw new Error('no such e-mail arrived');
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  } as Partial<ProdStack> as ProdStack;

  beforeAll(async () => {
    launcher = spawn(process.execPath, [join(ROOT, 'scripts/prod-stack.mjs')], {
      cwd: ROOT,
      env: { ...process.env, ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a failing test still stops every process it started.
      detached: true,
    });
    launcher.stdout!.on('data', (chunk) => (output += chunk));
    launcher.stderr!.on('data', (chunk) => (output += chunk));
    const line = await new Promise<string>((found, fail) => {
      const timer = setTimeout(() => fail(new Error(`stack:prod not up in 150 s:\n${output}`)), 150_000);
      const check = () => {
        const match = /^STACK (.*)$/m.exec(output);
        if (match) {
          clearTimeout(timer);
          found(match[1]!);
        }
      };
      launcher!.stdout!.on('data', check);
      launcher!.once('exit', (code) => fail(new Error(`stack:prod exited with ${code}:\n${output}`)));
    });
    rig.stack = JSON.parse(line) as StackInfo;
    // The Jest global teardown stops it too, should this worker die before afterAll.
    const pids = process.env.BLOG_TEST_PIDS_DIR;
    if (pids) writeFileSync(join(pids, String(launcher.pid)), rig.stack.dir);
    rig.browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await rig.browser?.close();
    await stopLauncher();
    if (process.env.BLOG_TEST_PIDS_DIR && launcher?.pid)
      rmSync(join(process.env.BLOG_TEST_PIDS_DIR, String(launcher.pid)), { force: true });
    // Everything it started is gone, its folder too.
    for (const pid of Object.values(rig.stack?.pids ?? {})) {
      // Gone, or a zombie nobody reaps (this container's PID 1 does not).
      const state = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      expect([pid, state === '' || state.slice(state.lastIndexOf(')') + 2).startsWith('Z')]).toEqual([
        pid,
        true,
      ]);
    }
    if (rig.stack) expect(existsSync(rig.stack.dir)).toBe(false);
    expect(output).toContain('[stack:prod] stopped');
  }, 60_000);
  return rig;
}
