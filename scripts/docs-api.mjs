#!/usr/bin/env node
// Lists every HTTP route the gateway answers, read from its controllers' decorators (and the
// two routes mounted as middleware before Nest's routing), with who may call it; then the
// routes of the federation the gateway hands to the social service, read from where
// libs/federation registers them with Fedify (its paths.ts constants, its dispatchers, its
// inbox listeners).
// `node scripts/docs-api.mjs` prints them as a Markdown table; `--write` puts that table, each
// route linked to its section, into docs/api.md between its `routes:start`/`routes:end` marks.
// e2e/tests/docs.spec.ts checks that docs/api.md has that table as generated now and a section
// for exactly these routes.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
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

const FEDERATION_SOURCES = ['libs/federation/src/federation.ts', 'libs/federation/src/inbox.ts'];
/** A path as the sources write it: a string, a template of paths.ts constants, or one constant. */
const PATH_EXPRESSION = "(`[^`]*`|'[^']*'|[A-Z_]+)";
/** Fedify's registrations that answer GET; an object dispatcher names its type first. */
const DISPATCHERS = [
  new RegExp(
    String.raw`\.set(Actor|Outbox|Followers|Following|NodeInfo)Dispatcher\(\s*` + PATH_EXPRESSION,
    'g',
  ),
  new RegExp(String.raw`\.set(Object)Dispatcher\(\s*\w+,\s*` + PATH_EXPRESSION, 'g'),
];
const INBOX_LISTENERS = new RegExp(
  String.raw`\.setInboxListeners\(\s*` +
    PATH_EXPRESSION +
    String.raw`,\s*` +
    PATH_EXPRESSION +
    String.raw`\s*\)`,
  'g',
);
/** What Fedify answers by itself once a dispatcher is set: WebFinger for the actor, NodeInfo's link. */
const FEDIFY_WELL_KNOWN = {
  Actor: '/.well-known/webfinger',
  NodeInfo: '/.well-known/nodeinfo',
};

/**
 * Every route of the federation (ActivityPub, WebFinger, NodeInfo), `{ method, path, access,
 * source }` as gatewayRoutes gives them: the gateway's FederationProxy hands these to the social
 * service, where Fedify answers them as libs/federation registers them. Read from the sources:
 * the constants of libs/federation/src/paths.ts (the actor's identifier filled in), each
 * dispatcher's path, and the two inboxes of setInboxListeners.
 */
export function federationRoutes(root = ROOT) {
  const paths = readFileSync(join(root, 'libs/federation/src/paths.ts'), 'utf8');
  const constants = Object.fromEntries(
    [...paths.matchAll(/export const (\w+) = '([^']*)'/g)].map((match) => [match[1], match[2]]),
  );
  const resolve = (expression) => {
    let path = constants[expression];
    if (expression.startsWith("'")) path = expression.slice(1, -1);
    if (expression.startsWith('`'))
      path = expression.slice(1, -1).replace(/\$\{(\w+)\}/g, (whole, name) => constants[name] ?? whole);
    if (!path?.startsWith('/') || path.includes('${'))
      throw new Error(`a federation path docs-api.mjs cannot read: ${expression}`);
    return path.replace('{identifier}', constants.FEDERATION_ACTOR_IDENTIFIER);
  };
  const routes = [];
  for (const source of FEDERATION_SOURCES) {
    const text = readFileSync(join(root, source), 'utf8');
    const registered = DISPATCHERS.flatMap((pattern) => [...text.matchAll(pattern)]).sort(
      (a, b) => a.index - b.index,
    );
    for (const [, kind, expression] of registered) {
      const wellKnown = FEDIFY_WELL_KNOWN[kind];
      if (wellKnown) routes.push({ method: 'GET', path: wellKnown, access: 'public', source });
      routes.push({ method: 'GET', path: resolve(expression), access: 'public', source });
    }
    for (const [, ...inboxes] of text.matchAll(INBOX_LISTENERS))
      for (const expression of inboxes)
        routes.push({ method: 'POST', path: resolve(expression), access: 'signed by a server', source });
  }
  return routes;
}

/** Every route docs/api.md documents: the gateway's own, then the federation's. */
export const documentedRoutes = (root = ROOT) => [...gatewayRoutes(root), ...federationRoutes(root)];

/** The heading docs/api.md gives a route: `METHOD path`. */
export const routeHeading = (route) => `${route.method} ${route.path}`;

/** The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces to hyphens. */
export const headingAnchor = (heading) =>
  heading
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

export const TABLE_START = '<!-- routes:start (made by node scripts/docs-api.mjs --write) -->';
export const TABLE_END = '<!-- routes:end -->';

/** The route table of docs/api.md: each route linked to its section, with who may call it. */
export function routeTable(routes) {
  const rows = routes.map(
    (route) =>
      `| [\`${route.method} ${route.path}\`](#${headingAnchor(routeHeading(route))}) | ${route.access} | \`${route.source}\` |`,
  );
  return ['| Route | Who may call | Handled in |', '|---|---|---|', ...rows].join('\n');
}

/** `text` with the part between the marks replaced by `table`. */
export function withRouteTable(text, table) {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/api.md lacks the marks ${TABLE_START} … ${TABLE_END}`);
  return `${text.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${text.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const table = routeTable(documentedRoutes());
  if (process.argv.includes('--write')) {
    const file = join(ROOT, 'docs/api.md');
    writeFileSync(file, withRouteTable(readFileSync(file, 'utf8'), table));
    console.log('docs/api.md: route table written');
  } else console.log(table);
}
