/**
 * The docs in the repository stay true to it: docs/api.md has one section for each route the
 * gateway answers (the federation's too) and none for a route it does not, with the route table
 * the script makes;
 * product.md's limits table states the values of libs/contracts; every relative link of
 * README.md and docs/*.md reaches a file (and, with a #fragment, a heading of that file) and
 * every repository path they name exists. Nothing outside the repository is linked or named.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  documentedRoutes,
  federationRoutes,
  gatewayRoutes,
  headingAnchor,
  routeHeading,
  routeTable,
  withRouteTable,
} from '../../scripts/docs-api.mjs';
import { FEDERATION_INBOX_PATH, isFederationRequest } from '@blog/contracts';
import {
  ACTOR_PATH,
  FEDERATION_ACTOR_IDENTIFIER,
  SHARED_INBOX_PATH,
} from '../../libs/federation/src/paths.js';
import { storageEnv } from '../../libs/server-kit/src/storage/config.js';
import { gatewayConfigSchema } from '../../gateway/src/config.js';
import { authConfigSchema } from '../../services/auth/src/config.js';
import { mailConfigSchema } from '../../services/mail/src/config.js';
import { mediaConfigSchema } from '../../services/media/src/config.js';
import { postsConfigSchema } from '../../services/posts/src/config.js';
import { socialConfigSchema } from '../../services/social/src/config.js';
import {
  ADMIN_PAGE_SIZE,
  ADMIN_PREVIEW_LENGTH,
  AUTOSAVE_DELAY_MS,
  DRAFT_LIFETIME_MS,
  FILE_READ_TIMEOUT_MS,
  NOTIFICATION_FADE_MS,
  NOTIFICATION_MS,
  SAVED_INDICATOR_MS,
  UPLOAD_TIMEOUT_MS,
} from '@blog/contracts/admin';
import { PASSWORD_MAX, PASSWORD_MIN, USERNAME_MAX, USERNAME_MIN } from '@blog/contracts/auth';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_TTL_HOURS } from '@blog/contracts/idempotency';
import { CROP_FRAME, SETTINGS_DEFAULTS, SETTINGS_LIMITS } from '@blog/contracts/image-settings';
import { IMPORT_MAX_BYTES } from '@blog/contracts/import';
import { EXCERPT_LENGTH } from '@blog/contracts/links';
import {
  CONTACT_MESSAGE_MAX,
  CONTACT_NAME_MAX,
  CONTACT_SUBJECT_MAX,
  EMAIL_MAX,
  MAIL_PAGE_DEFAULT,
} from '@blog/contracts/mail';
import { MAX_FILE_BYTES } from '@blog/contracts/media';
import {
  EXCERPT_MAX,
  MEDIA_ALT_MAX,
  MEDIA_CAPTION_MAX,
  POST_CONTENT_MAX,
  POST_TITLE_MAX,
  POSTS_PAGE_DEFAULT,
  POSTS_PAGE_MAX,
  SEARCH_QUERY_MAX,
  SLUG_MAX,
  TAG_MAX,
  TAGS_MAX,
  WORDS_PER_MINUTE,
} from '@blog/contracts/posts';
import {
  STATS_MAX_DAYS,
  VIEWS_PER_ADDRESS_PER_MINUTE,
  VISITORS_PER_ADDRESS_PER_DAY,
} from '@blog/contracts/stats';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = join(ROOT, 'docs');
const pages = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
];

/** The text of a Markdown file without its fenced code blocks (their `#` lines are not headings). */
function prose(file: string): string {
  return readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
}

/** The anchors GitHub gives a file's headings, repeats numbered (`-1`, `-2`). */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of prose(file).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(text!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every `[text](target)` and `![alt](target)` of a file, outside code. */
function linksOf(file: string): string[] {
  const text = prose(file).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

describe('docs/api.md', () => {
  const routes = gatewayRoutes(ROOT);
  const documented = [...prose(join(DOCS, 'api.md')).matchAll(/^### ([A-Z]+ \/\S*)\s*$/gm)].map(
    (match) => match[1]!,
  );

  it('the gateway has routes to document (the controllers were read)', () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.map(routeHeading)).toEqual(
      expect.arrayContaining(['GET /api/posts', 'POST /api/auth/login']),
    );
  });

  it('documents every route the gateway answers', () => {
    const missing = routes.map(routeHeading).filter((heading) => !documented.includes(heading));
    expect(missing).toEqual([]);
  });

  it('holds the route table as `node scripts/docs-api.mjs --write` makes it from the controllers now', () => {
    const text = readFileSync(join(DOCS, 'api.md'), 'utf8');
    expect(withRouteTable(text, routeTable(documentedRoutes(ROOT)))).toBe(text);
  });

  it('documents no route the gateway does not answer, and each once', () => {
    const known = new Set(documentedRoutes(ROOT).map(routeHeading));
    expect(documented.filter((heading) => !known.has(heading))).toEqual([]);
    expect(documented.filter((heading, i) => documented.indexOf(heading) !== i)).toEqual([]);
  });
});

describe("docs/api.md: the federation's routes", () => {
  // What other servers call (WebFinger, NodeInfo, the actor and its collections, the inboxes, a
  // post's Article), read by docs-api.mjs from where libs/federation registers them with Fedify.
  const routes = federationRoutes(ROOT);
  const documented = [...prose(join(DOCS, 'api.md')).matchAll(/^### ([A-Z]+ \/\S*)\s*$/gm)].map(
    (match) => match[1]!,
  );
  const actor = ACTOR_PATH.replace('{identifier}', FEDERATION_ACTOR_IDENTIFIER);

  it("are read on the paths libs/federation's constants name: the actor, its collections, both inboxes", () => {
    expect(routes.map(routeHeading)).toEqual(
      expect.arrayContaining([
        'GET /.well-known/webfinger',
        'GET /.well-known/nodeinfo',
        'GET /nodeinfo/2.1',
        `GET ${actor}`,
        `GET ${actor}/outbox`,
        `GET ${actor}/followers`,
        `GET ${actor}/following`,
        `POST ${actor}/inbox`,
        `POST ${SHARED_INBOX_PATH}`,
        'GET /post/{id}',
      ]),
    );
  });

  it('are each a request the gateway hands to the federation', () => {
    const notHanded = routes.filter(({ method, path }) => {
      const concrete = path.replace('{id}', '1');
      return method === 'POST'
        ? !FEDERATION_INBOX_PATH.test(concrete)
        : !isFederationRequest(concrete, 'application/activity+json');
    });
    expect(notHanded).toEqual([]);
  });

  it('are each documented', () => {
    expect(routes.map(routeHeading).filter((heading) => !documented.includes(heading))).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  const gitFiles = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => existsSync(join(ROOT, path)));
  /** The code that runs the blog and its commands: the servers, the libraries, the launcher and scripts. */
  const code = gitFiles.filter(
    (path) =>
      (/^(gateway|services\/[^/]+|libs\/[^/]+)\/src\/.+\.(ts|tsx|mjs)$/.test(path) &&
        !path.endsWith('.spec.ts') &&
        !path.includes('/testing/')) ||
      /^scripts\/(lib\/)?[^/]+\.mjs$/.test(path),
  );
  /** What the environment is read for outside the config schemas: `process.env.X`, `env.X`, `env['X']`. */
  const readInCode = new Map<string, string[]>();
  for (const path of code)
    for (const [, dotted, quoted] of readFileSync(join(ROOT, path), 'utf8').matchAll(
      /\b(?:process\.env|env)(?:\.([A-Z][A-Z0-9_]*)\b|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g,
    ))
      readInCode.set(dotted ?? quoted!, [...(readInCode.get(dotted ?? quoted!) ?? []), path]);
  /** The keys of a config schema (zod: an object, possibly inside a transform's pipe). */
  const keysOf = (schema: unknown): string[] => {
    type Node = { shape?: object; in?: unknown; def?: { in?: unknown; innerType?: unknown } };
    let node = schema as Node;
    for (let depth = 0; !node.shape && depth < 10; depth++)
      node = (node.in ?? node.def?.in ?? node.def?.innerType) as Node;
    if (!node?.shape) throw new Error('a config schema that is not a zod object');
    return Object.keys(node.shape);
  };
  /** Who reads which schema: each server's own, and the storage's for every server that makes a store. */
  const storageUsers = ['gateway', 'services/posts', 'services/media', 'services/mail', 'services/social']
    .filter((dir) =>
      code.some(
        (path) =>
          path.startsWith(`${dir}/src/`) && /\bcreateStorage\(/.test(readFileSync(join(ROOT, path), 'utf8')),
      ),
    )
    .map((dir) => dir.replace('services/', ''));
  const schemas: [string, unknown][] = [
    ['gateway', gatewayConfigSchema],
    ['auth', authConfigSchema],
    ['posts', postsConfigSchema],
    ['media', mediaConfigSchema],
    ['mail', mailConfigSchema],
    ['social', socialConfigSchema],
    ...storageUsers.map((user): [string, unknown] => [user, storageEnv]),
  ];
  /** The system's own variables, not settings of the blog. */
  const SYSTEM = new Set(['PATH', 'HOME']);

  /** The table's rows: the variables the first cell names, and who uses them. */
  const rows = prose(join(DOCS, 'configuration.md'))
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, names, usedBy] = line.split('|');
      return {
        names: [...names!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!),
        usedBy: usedBy!.trim(),
      };
    });
  const documented = new Set(rows.flatMap((row) => row.names));

  it('the code was read: its config schemas and what it reads of the environment', () => {
    expect(storageUsers).toEqual(expect.arrayContaining(['gateway', 'posts', 'media']));
    expect(keysOf(mailConfigSchema)).toEqual(
      expect.arrayContaining(['SMTP_URL', 'DATABASE_URL', 'TRANSPORT']),
    );
    expect([...readInCode.keys()]).toEqual(expect.arrayContaining(['PG_PORT', 'NODE_COMPILE_CACHE']));
  });

  it('names every variable the code reads', () => {
    const read = new Set([...schemas.flatMap(([, schema]) => keysOf(schema)), ...readInCode.keys()]);
    const missing = [...read].filter((name) => !SYSTEM.has(name) && !documented.has(name));
    expect(
      missing.map((name) => `${name} (${readInCode.get(name)?.join(', ') ?? 'a config schema'})`),
    ).toEqual([]);
  });

  it("names the right users of each server's settings", () => {
    const covers = (usedBy: string, server: string) =>
      new RegExp(`\\b(${server}|all)\\b`).test(usedBy) ||
      (server !== 'gateway' && /\bservices\b|\beach service\b/.test(usedBy));
    const wrong = schemas.flatMap(([server, schema]) =>
      keysOf(schema)
        .filter((name) => !rows.some((row) => row.names.includes(name) && covers(row.usedBy, server)))
        .map((name) => `${name}: ${server}`),
    );
    expect(wrong).toEqual([]);
  });
});

describe('docs/product.md "Limits and timings"', () => {
  const section = prose(join(DOCS, 'product.md'))
    .split(/^## Limits and timings$/m)[1]!
    .split(/^## /m)[0]!;
  /** The table row whose first cell is `name`. */
  const row = (name: string) => {
    const line = section.split('\n').find((text) => text.startsWith(`| ${name} |`));
    if (!line) throw new Error(`no row "${name}" in the limits table`);
    return line;
  };
  const n = (value: number) => value.toLocaleString('en-US');
  const s = (ms: number) => `${ms / 1000} s`;
  const { image_max_size: size, image_quality: quality } = SETTINGS_LIMITS;

  it.each([
    [
      'Username / password',
      [`${USERNAME_MIN}–${USERNAME_MAX} characters`, `${PASSWORD_MIN}–${PASSWORD_MAX} characters`],
    ],
    ['Post title / text', [`${n(POST_TITLE_MAX)} / ${n(POST_CONTENT_MAX)} characters`]],
    ['Tags', [`at most ${TAGS_MAX}, each at most ${TAG_MAX} characters`]],
    ['Slug', [`at most ${SLUG_MAX} characters`]],
    ['Alt text / caption of a media item', [`${MEDIA_ALT_MAX} / ${MEDIA_CAPTION_MAX} characters`]],
    ['One uploaded file', [`${MAX_FILE_BYTES / 1024 ** 2} MB`]],
    ['An import file', [`${IMPORT_MAX_BYTES / 1024 ** 3} GB`]],
    [
      'Contact form',
      [
        `name ${CONTACT_NAME_MAX}, e-mail ${EMAIL_MAX}, subject ${CONTACT_SUBJECT_MAX}, message ${n(CONTACT_MESSAGE_MAX)} characters`,
      ],
    ],
    ['Search text', [`${SEARCH_QUERY_MAX} characters`]],
    [
      'Page sizes',
      [
        `dashboard posts ${ADMIN_PAGE_SIZE}`,
        `messages and subscribers ${MAIL_PAGE_DEFAULT}`,
        `API lists ${POSTS_PAGE_DEFAULT} by default and ${POSTS_PAGE_MAX} at most`,
      ],
    ],
    [
      'Previews',
      [`dashboard rows ${ADMIN_PREVIEW_LENGTH}`, `digest ${EXCERPT_LENGTH}`, `excerpt ${EXCERPT_MAX}`],
    ],
    ['Reading time', [`${WORDS_PER_MINUTE} words a minute`]],
    ['Upload timeout (browser)', [s(UPLOAD_TIMEOUT_MS), `reading one file ${s(FILE_READ_TIMEOUT_MS)}`]],
    [
      'Local draft of the post form',
      [
        `saved ${s(AUTOSAVE_DELAY_MS)} after a change`,
        `kept ${DRAFT_LIFETIME_MS / 3_600_000} hours`,
        `shown ${s(SAVED_INDICATOR_MS)}`,
      ],
    ],
    ['Notifications', [`${s(NOTIFICATION_MS)}, ${NOTIFICATION_FADE_MS} ms fade`]],
    [
      'Image settings',
      [
        `maximum size ${size.min}–${size.max} px (steps of ${size.step}, default ${SETTINGS_DEFAULTS.image_max_size})`,
        `quality ${quality.min}–${quality.max} (steps of ${quality.step}, default ${SETTINGS_DEFAULTS.image_quality})`,
      ],
    ],
    ['Crop frame', [`${CROP_FRAME.width}×${CROP_FRAME.height}`]],
    [
      'Page-view beacons',
      [`${VIEWS_PER_ADDRESS_PER_MINUTE} a minute and ${VISITORS_PER_ADDRESS_PER_DAY} visitors a day`],
    ],
    ['Statistics range', [`${STATS_MAX_DAYS} days`]],
    [
      '`Idempotency-Key`',
      [`1–${IDEMPOTENCY_KEY_MAX} visible characters, remembered ${IDEMPOTENCY_TTL_HOURS} hours`],
    ],
  ] as [string, string[]][])('%s: the values of libs/contracts', (name, phrases) => {
    for (const phrase of phrases) expect(row(name)).toContain(phrase);
  });
});

describe('links in README.md and docs/', () => {
  it.each(pages.map((file) => [relative(ROOT, file), file]))(
    '%s links only to files and headings that exist',
    (_, file) => {
      const broken: string[] = [];
      for (const link of linksOf(file)) {
        if (/^[a-z]+:/i.test(link)) continue; // http(s) and mailto: outside this check
        const [path, fragment] = link.split('#') as [string, string | undefined];
        const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        if (!target.startsWith(ROOT + '/') && target !== ROOT)
          broken.push(`${link} (outside the repository)`);
        else if (!existsSync(target)) broken.push(`${link} (no such file)`);
        else if (fragment && target.endsWith('.md') && !anchorsOf(target).has(fragment))
          broken.push(`${link} (no such heading)`);
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(pages.map((file) => [relative(ROOT, file), file]))(
    '%s names only repository paths that exist',
    (_, file) => {
      const named = [
        ...readFileSync(file, 'utf8').matchAll(
          /`((?:libs|gateway|services|web|scripts|e2e|infra|config|docs)\/[^`\s<>{}*…]*)`/g,
        ),
      ].map((match) => match[1]!);
      expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
    },
  );

  it('name nothing outside the repository', () => {
    const outside = pages.filter((file) =>
      /\.\.\/shared|SPEC\.md|ARCHITECTURE\.md/.test(readFileSync(file, 'utf8')),
    );
    expect(outside.map((file) => relative(ROOT, file))).toEqual([]);
  });
});

describe('the docs that code cites', () => {
  // Comments and test names point at docs/ pages and headings (`docs/product.md#limits-and-timings,
  // #error-texts`): each must exist, or the pointer sends a reader nowhere.
  const sources = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => /\.(ts|tsx|mjs|conf|ya?ml|css)$/.test(path) && existsSync(join(ROOT, path)));

  it('every cited docs page and heading exists', () => {
    const broken: string[] = [];
    for (const path of sources) {
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const [, page, headings] of line.matchAll(
            /(docs\/[\w/.-]+\.md)((?:#[\w-]+)?(?:, #[\w-]+)*)/g,
          )) {
            const file = join(ROOT, page!);
            if (!existsSync(file)) broken.push(`${path}:${index + 1} ${page} (no such page)`);
            else
              for (const [, heading] of headings!.matchAll(/#([\w-]+)/g))
                if (!anchorsOf(file).has(heading!)) broken.push(`${path}:${index + 1} ${page}#${heading}`);
          }
        });
    }
    expect(broken).toEqual([]);
  });

  it('no source cites a spec outside the repository', () => {
    const outside = sources.filter((path) =>
      /SPEC\.md|\.\.\/shared\//.test(readFileSync(join(ROOT, path), 'utf8')),
    );
    expect(outside).toEqual([]);
  });
});
