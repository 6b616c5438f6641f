// What docker-compose.yml (with the scale-out override) gives each service, for `npm run stack:prod`.
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The environment compose gives one service in the topology this stack runs: docker-compose.yml
 * with docker-compose.scale.yml's variables over it (NATS), interpolated as compose does
 * (`${VAR}`, `${VAR:-default}`, `${VAR:?error}`, `$$`; a key without value passes VAR through).
 */
export function composeEnvironment(service, variables) {
  const environmentIn = (file) =>
    parse(readFileSync(join(ROOT, file), 'utf8'), { merge: true }).services[service]?.environment;
  const environment = environmentIn('docker-compose.yml');
  if (!environment) throw new Error(`docker-compose.yml has no environment for ${service}`);
  const env = {};
  for (const [key, raw] of Object.entries({ ...environment, ...environmentIn('docker-compose.scale.yml') })) {
    if (raw === null) {
      if (variables[key] !== undefined) env[key] = variables[key];
      continue;
    }
    env[key] = String(raw)
      .replace(/\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (_match, name, operator, word) => {
        const value = variables[name];
        if (operator?.endsWith('?') && !value) throw new Error(`${name}: ${word}`);
        if (operator?.endsWith('-') && !value) return word;
        return value ?? '';
      })
      .replaceAll('$$', '$');
  }
  return env;
}
