// Stops `npm start`, `npm test` and `npm run build` on a Node.js older than the project's
// `engines.node` with one line saying what was found, what is needed and how to get it,
// instead of a stack trace from deep inside a dependency. Run it (`node
// scripts/lib/check-node.mjs`) or import it first. Plain JavaScript with only Node's own
// modules, so that an old Node can read it.
import { readFileSync } from 'node:fs';

/** The lowest version a `>=X[.Y[.Z]]` range allows, as [major, minor, patch]. */
export function lowestAllowed(range) {
  const match = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range ?? '');
  if (!match) throw new Error(`engines.node must be ">=X[.Y[.Z]]", not ${JSON.stringify(range)}`);
  return match.slice(1, 4).map((part) => Number(part ?? 0));
}

/** The line to print when `found` (e.g. `v20.20.2`) is older than `range`, else null. */
export function nodeVersionProblem(found, range) {
  const needed = lowestAllowed(range);
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(found)?.slice(1, 4).map(Number) ?? [0, 0, 0];
  const difference = have.map((part, i) => part - needed[i]).find((d) => d !== 0) ?? 0;
  if (difference >= 0) return null;
  const shown = needed[1] || needed[2] ? needed.join('.') : String(needed[0]);
  return (
    `personal-blog needs Node.js >= ${shown} (found ${found}): ` +
    `install Node ${needed[0]} LTS, e.g. nvm install ${needed[0]} (or https://nodejs.org)`
  );
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const problem = nodeVersionProblem(process.version, manifest.engines?.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
