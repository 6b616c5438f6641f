#!/usr/bin/env node
// Lists every HTTP route the gateway answers, read from its controllers' decorators (and the
// two routes mounted as middleware before Nest's routing), with who may call it.
// `node scripts/docs-api.mjs` prints them as a Markdown table; e2e/tests/docs.spec.ts checks
// that docs/api.md documents exactly these routes.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Routes answered by middleware in gateway/src/app.ts and gateway/src/uploads, not by a controller. */
export const MIDDLEWARE_ROUTES = [
  { method: 'POST', path: '/api/views', access: 'public', source: 'gateway/src/stats/view-counter.ts' },
  {
    method: 'GET',
    path: '/uploads/{key}',
    access: 'public',
    source: 'gateway/src/uploads/uploads.middleware.ts',
  },
];

const METHOD_DECORATOR = /@(Get|Post|Put|Delete|Patch)\(\s*(?:'([^']*)')?\s*\)/;

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Nest's `:id` and `{*path}` written as the docs write them: `{id}`, `{*path}`. */
function docPath(prefix, sub) {
  const joined = [prefix, sub].filter((part) => part !== undefined && part !== '').join('/');
  return `/${joined}`.replace(/\/+/g, '/').replace(/:([A-Za-z]+)/g, '{$1}');
}

/** Who may call a handler, from the decorators above it (and on its class). */
function accessOf(decorators) {
  if (decorators.some((line) => line.includes('@AdminOnly('))) return 'admin';
  if (decorators.some((line) => /@UseGuards\([^)]*AuthGuard/.test(line))) return 'signed-in';
  return 'public';
}

/** Every controller route of the gateway: `{ method, path, access, source }`, in source order. */
export function gatewayRoutes(root = ROOT) {
  const routes = [];
  for (const file of sourceFiles(join(root, 'gateway/src'))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    let prefix = null;
    let classDecorators = [];
    let pending = [];
    for (const line of lines) {
      const trimmed = line.trim();
      const controller = trimmed.match(/^@Controller\(\s*(?:'([^']*)')?\s*\)/);
      if (controller) {
        prefix = controller[1] ?? '';
        classDecorators = pending;
        pending = [];
        continue;
      }
      if (trimmed.startsWith('@')) {
        pending.push(trimmed);
        continue;
      }
      if (prefix !== null && /^export class /.test(trimmed)) {
        classDecorators = [...classDecorators, ...pending];
        pending = [];
        continue;
      }
      if (
        prefix !== null &&
        pending.length > 0 &&
        trimmed !== '' &&
        !trimmed.startsWith('*') &&
        !trimmed.startsWith('/')
      ) {
        for (const decorator of pending) {
          const route = decorator.match(METHOD_DECORATOR);
          if (!route) continue;
          routes.push({
            method: route[1].toUpperCase(),
            path: docPath(prefix, route[2]),
            access: accessOf([...classDecorators, ...pending]),
            source: relative(root, file),
          });
        }
        pending = [];
      }
    }
  }
  return [...routes, ...MIDDLEWARE_ROUTES];
}

/** The heading docs/api.md gives a route: `METHOD path`. */
export const routeHeading = (route) => `${route.method} ${route.path}`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log('| Method | Path | Who may call | Handler |');
  console.log('|---|---|---|---|');
  for (const route of gatewayRoutes())
    console.log(`| ${route.method} | \`${route.path}\` | ${route.access} | \`${route.source}\` |`);
}
