// The answers check's view of an answer (compare-answers.mjs): the headers that matter, what
// must differ between two builds made equal, the body made readable line by line, and the
// intended differences (compare-answers.allowed.mjs) applied.
import { createHash } from 'node:crypto';
import { ALLOWED } from './compare-answers.allowed.mjs';

/** The headers a reader, a cache or a browser acts on. Date, Content-Length and the like follow. */
export const HEADERS = [
  'content-type',
  'cache-control',
  'location',
  'etag',
  'vary',
  'content-encoding',
  'content-security-policy',
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'strict-transport-security',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'permissions-policy',
  'x-total-count',
  'retry-after',
  'allow',
];

// ---------------------------------------------------------------------------------------------
// What must differ between two builds, made equal. Nothing else is touched.

const NORMALISE_BODY = [
  // Vite names each built file after a hash of its contents: any change to the web code (or to
  // a dependency) renames it, while the page still loads the same entry and stylesheet.
  [/(\/assets\/[\w.-]+?)-[\w-]{8}(\.(?:js|css|woff2?|svg|png|jpe?g|webp))/g, '$1-[hash]$2'],
  // A CSP nonce is random per answer by design.
  [/nonce-[A-Za-z0-9+/=_-]+/g, 'nonce-[nonce]'],
  [/nonce="[A-Za-z0-9+/=_-]+"/g, 'nonce="[nonce]"'],
];

/**
 * Ids drawn at random when a row is made: a media item's uuid, a category node's id ("n" and 11
 * hex digits, libs/contracts site-config.ts). Each becomes its order of first appearance in the
 * answer, so the same structure still compares equal and a changed one does not.
 */
const GENERATED_IDS = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, 'uuid'],
  [/\bn[0-9a-f]{11}\b/g, 'node'],
];

function normaliseText(text, ports) {
  let out = text;
  // Each stack listens on ports of its own; an answer that names one names the other's.
  for (const port of ports) out = out.replaceAll(`127.0.0.1:${port}`, '127.0.0.1:[port]');
  for (const [pattern, replacement] of NORMALISE_BODY) out = out.replace(pattern, replacement);
  for (const [pattern, kind] of GENERATED_IDS) {
    const seen = new Map();
    out = out.replace(pattern, (id) => {
      if (!seen.has(id)) seen.set(id, `[${kind}-${seen.size + 1}]`);
      return seen.get(id);
    });
  }
  // A media item's files sit in a folder named by a hash of its original's key (media-worker.ts
  // outputFolder), and that key holds ids drawn at upload: the folder differs as the id does.
  out = out.replace(/(media\/items\/\[uuid-\d+\]\/)[0-9a-f]{16}\//g, '$1[hash]/');
  return out;
}

function normaliseHeader(name, value, ports) {
  if (value === undefined) return undefined;
  // An ETag is a hash of the body: the body is compared itself, so only the policy counts
  // (none, weak or strong). The asset hashes above would make every page's ETag differ.
  if (name === 'etag') return value.startsWith('W/') ? 'W/"…" (weak)' : '"…" (strong)';
  // The seconds left in a limit's window count from each stack's own first hit, and the stacks
  // are asked in turn: the base's time to answer that first hit (an argon2 check, a page render)
  // shifts this build's window by up to a few seconds. Compared in whole minutes.
  if (name === 'retry-after' && /^\d+$/.test(value)) return `≈${Math.round(Number(value) / 60)} min`;
  return normaliseText(value, ports);
}

/** An answer as lines of text: status, the headers that matter, then the body made readable. */
export function render(answer, ports) {
  const lines = [`status: ${answer.status}`];
  for (const name of HEADERS) {
    const value = normaliseHeader(name, answer.headers[name], ports);
    if (value !== undefined) lines.push(`${name}: ${value}`);
  }
  lines.push('');
  const type = answer.headers['content-type'] ?? '';
  // A picture or a video: its length and hash (the bytes themselves, not as text).
  if (/^(image\/(?!svg)|video\/|audio\/|application\/octet-stream)/.test(type)) {
    const sha256 = createHash('sha256').update(answer.bytes).digest('hex');
    lines.push(`${answer.bytes.length} bytes, sha256 ${sha256}`);
    return lines.join('\n');
  }
  let body = normaliseText(answer.body, ports);
  // One element or one JSON field a line, so a diff points at the change, not at a 40 KB line.
  if (type.includes('json')) {
    try {
      body = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // not JSON after all: compared as it is
    }
  } else if (/html|xml/.test(type)) {
    body = body
      .replace(/></g, '>\n<')
      .replace(/<style>([\s\S]*?)<\/style>/g, (_, css) => `<style>${css.replace(/\}/g, '}\n')}</style>`);
  }
  lines.push(...body.split('\n'));
  return lines.join('\n');
}

/**
 * Applies the intended changes that name this URL (ALLOWED): to the base's answer, or taken out
 * of this build's. Returns both texts and the commits whose change was found.
 */
export function applyIntended(key, base, build) {
  const used = new Set();
  const texts = { base, build };
  for (const change of ALLOWED) {
    if (!change.urls.test(key)) continue;
    const side = change.side ?? 'base';
    const next = texts[side].replace(change.from, change.to);
    if (next !== texts[side]) used.add(change.commit);
    texts[side] = next;
  }
  return { ...texts, commits: [...used] };
}
