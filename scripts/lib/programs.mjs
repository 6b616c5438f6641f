// The programs `npm run stack:prod` runs besides Node, and how to tell which this machine lacks.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The programs the topology runs besides Node, where Debian puts them, and the package to install. */
export const PROGRAMS = [
  { name: 'nginx', package: 'nginx', dirs: [] },
  { name: 'redis-server', package: 'redis-server', dirs: ['/usr/bin'] },
  { name: 'nats-server', package: 'nats-server', dirs: ['/usr/sbin', '/usr/bin'] },
];

/** A program's path: on PATH, else in one of `dirs`; null when it is nowhere. */
export function findProgram(name, dirs = []) {
  const path = (process.env.PATH ?? '').split(':').filter(Boolean);
  for (const dir of [...path, ...dirs]) {
    const file = join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}

/** Each program stack:prod needs that this machine lacks, with how to get it. */
export function missingPrograms() {
  return PROGRAMS.filter((p) => !findProgram(p.name, p.dirs)).map((p) => ({
    name: p.name,
    install: `apt-get install ${p.package}`,
  }));
}

export class MissingProgramsError extends Error {
  constructor(missing) {
    super(`needs ${missing.map((m) => `${m.name} (${m.install})`).join(', ')}`);
    this.missing = missing;
  }
}
