import type { MediaItemView } from '@blog/contracts';
import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import { XSS_CORPUS } from '../../test/xss-corpus.js';
import { ALLOWED_TAGS, isAllowedUrl, renderMarkdown, replaceMediaRefs } from './markdown.js';

const html = (markdown: string, media?: Map<string, MediaItemView>) =>
  renderMarkdown(markdown, { media }).html;

/** The renderer's own allow-list: the checker below adds what no allowed element may carry. */
const ALLOWED = new Set(ALLOWED_TAGS);
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'poster',
  'action',
  'formaction',
  'data',
  'background',
  'lowsrc',
  'dynsrc',
]);

function elements(nodes: ChildNode[]): Element[] {
  return nodes.flatMap((node) => ('attribs' in node ? [node as Element, ...elements(node.children)] : []));
}

/** Everything that could run: a tag outside the allow-list, an event handler, a style, a URL with a scheme other than http(s)/mailto. */
function executable(output: string): string[] {
  const problems: string[] = [];
  for (const element of elements(parseDocument(output).children)) {
    if (!ALLOWED.has(element.name)) problems.push(`<${element.name}>`);
    for (const [name, value] of Object.entries(element.attribs)) {
      if (name.startsWith('on') || name === 'style') problems.push(`${element.name}[${name}]`);
      const urls = name === 'srcset' ? value.split(',').map((entry) => entry.trim().split(' ')[0]!) : [value];
      if ((URL_ATTRIBUTES.has(name) || name === 'srcset') && urls.some((url) => !safeUrl(url)))
        problems.push(`${element.name}[${name}=${value}]`);
    }
    if (
      element.name === 'iframe' &&
      !element.attribs.src?.startsWith('https://www.youtube-nocookie.com/embed/')
    )
      problems.push(`iframe ${element.attribs.src}`);
    if (element.name === 'input' && element.attribs.type !== 'checkbox') problems.push('input');
  }
  return problems;
}

function safeUrl(url: string): boolean {
  // eslint-disable-next-line no-control-regex -- what a browser drops from a URL
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.replace(/[\u0000-\u0020]/g, ''))?.[1]?.toLowerCase();
  return scheme === undefined || ['http', 'https', 'mailto'].includes(scheme);
}

const photo: MediaItemView = {
  id: '6f1c2c1e-0000-4000-8000-000000000001',
  type: 'image',
  order: 0,
  status: 'ready',
  path: '/uploads/media/items/a/photo.jpeg',
  width: 1600,
  height: 1200,
  alt: 'The red roadster',
  caption: 'Parked at the lake',
  variants: [
    { path: '/uploads/media/items/a/400.avif', format: 'avif', width: 400, height: 300 },
    { path: '/uploads/media/items/a/400.webp', format: 'webp', width: 400, height: 300 },
    { path: '/uploads/media/items/a/800.jpeg', format: 'jpeg', width: 800, height: 600 },
  ],
};
const clip: MediaItemView = {
  id: '6f1c2c1e-0000-4000-8000-000000000002',
  type: 'video',
  order: 1,
  status: 'ready',
  path: '/uploads/media/items/b/clip.mp4',
  thumbnailPath: '/uploads/media/items/b/poster.jpg',
  width: 640,
  height: 360,
  alt: null,
  caption: null,
};
const youtube: MediaItemView = {
  id: '6f1c2c1e-0000-4000-8000-000000000003',
  type: 'youtube',
  order: 2,
  status: 'ready',
  url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  embedUrl: 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
  title: 'Lap of the track',
};
const pending: MediaItemView = { ...photo, id: '6f1c2c1e-0000-4000-8000-000000000004', status: 'pending' };
const media = new Map([photo, clip, youtube, pending].map((item) => [item.id, item]));

describe('Markdown: CommonMark and GitHub samples', () => {
  it.each([
    ['*em* and **strong**', '<p><em>em</em> and <strong>strong</strong></p>\n'],
    ['~~gone~~', '<p><s>gone</s></p>\n'],
    ['`code <b>`', '<p><code>code &lt;b&gt;</code></p>\n'],
    ['> quoted', '<blockquote>\n<p>quoted</p>\n</blockquote>\n'],
    ['1. one\n2. two', '<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n'],
    ['3. three', '<ol start="3">\n<li>three</li>\n</ol>\n'],
    ['- a\n- b', '<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n'],
    ['***', '<hr />\n'],
    ['```ts\nconst a = 1;\n```', '<pre><code class="language-ts">const a = 1;\n</code></pre>\n'],
    ['    indented code', '<pre><code>indented code\n</code></pre>\n'],
    ['line one\nline two', '<p>line one<br />\nline two</p>\n'],
    [
      '[a link](/garage) and [mail](mailto:me@example.com)',
      '<p><a href="/garage">a link</a> and <a href="mailto:me@example.com">mail</a></p>\n',
    ],
    ['[out](https://example.com)', '<p><a href="https://example.com" rel="noopener">out</a></p>\n'],
    [
      'see https://example.com/a?b=1 now',
      '<p>see <a href="https://example.com/a?b=1" rel="noopener">https://example.com/a?b=1</a> now</p>\n',
    ],
    [
      'see www.example.com now',
      '<p>see <a href="http://www.example.com" rel="noopener">www.example.com</a> now</p>\n',
    ],
    ['write to me@example.com', '<p>write to <a href="mailto:me@example.com">me@example.com</a></p>\n'],
    // A bare name with a country-code ending ("readme.md") stays text, as on GitHub.
    ['open readme.md', '<p>open readme.md</p>\n'],
    ['\\*not em\\*', '<p>*not em*</p>\n'],
  ])('%j', (markdown, expected) => {
    expect(html(markdown)).toBe(expected);
  });

  it('renders a table with alignment as classes (the CSP allows no inline style)', () => {
    expect(html('| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |')).toBe(
      '<table>\n<thead>\n<tr>\n<th class="align-left">a</th>\n<th class="align-center">b</th>\n<th class="align-right">c</th>\n</tr>\n</thead>\n' +
        '<tbody>\n<tr>\n<td class="align-left">1</td>\n<td class="align-center">2</td>\n<td class="align-right">3</td>\n</tr>\n</tbody>\n</table>\n',
    );
  });

  it('renders task lists as disabled checkboxes', () => {
    expect(html('- [ ] todo\n- [x] done')).toBe(
      '<ul class="contains-task-list">\n<li class="task-list-item"><input type="checkbox" disabled aria-label="Not done" /> todo</li>\n' +
        '<li class="task-list-item"><input type="checkbox" disabled checked aria-label="Done" /> done</li>\n</ul>\n',
    );
  });

  it('gives headings ids a link can point at, unique within the post and never one the page uses', () => {
    expect(html('# Fitting the tyres\n## Fitting the tyres\n## Crème brûlée!\n# root')).toBe(
      '<h1 id="fitting-the-tyres">Fitting the tyres</h1>\n<h2 id="fitting-the-tyres-2">Fitting the tyres</h2>\n' +
        '<h2 id="creme-brulee">Crème brûlée!</h2>\n<h1 id="root-section">root</h1>\n',
    );
  });

  it('shows raw HTML as text', () => {
    expect(html('<b>bold?</b>\n\n<div class="x">block</div>')).toBe(
      '<p>&lt;b&gt;bold?&lt;/b&gt;</p>\n<p>&lt;div class="x"&gt;block&lt;/div&gt;</p>\n',
    );
  });

  it('links pictures from other sites instead of loading them', () => {
    expect(html('![a pixel](https://tracker.example/p.gif)')).toBe(
      '<p><a href="https://tracker.example/p.gif" rel="noopener">a pixel</a></p>\n',
    );
    expect(html('![site logo](/logo.png)')).toBe(
      '<p><img src="/logo.png" alt="site logo" loading="lazy" decoding="async" /></p>\n',
    );
  });
});

describe('Markdown: links only to http(s), mailto and relative places', () => {
  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
  ])('refuses %j', (url) => {
    expect(isAllowedUrl(url)).toBe(false);
  });

  it.each([
    'https://example.com',
    'http://example.com',
    'mailto:a@b.c',
    '/garage',
    'relative/path',
    '#section',
    '?q=1',
  ])('accepts %j', (url) => {
    expect(isAllowedUrl(url)).toBe(true);
  });
});

describe('Markdown: the cross-site-scripting corpus', () => {
  it.each(XSS_CORPUS.map((entry) => [entry]))('%j renders nothing executable', (entry) => {
    const output = html(entry, media);
    expect(executable(output)).toEqual([]);
    // Also as a link target and an image, and inside a list and a quote.
    for (const wrapped of [`[x](${entry})`, `![x](${entry})`, `- ${entry}`, `> ${entry}`]) {
      expect(executable(html(wrapped, media))).toEqual([]);
    }
  });

  it('has entries that would run if passed through (the checker is not blind)', () => {
    expect(executable('<img src=x onerror=alert(1)>')).toEqual(['img[onerror]']);
    expect(executable('<a href="javascript:alert(1)">x</a>')).toEqual(['a[href=javascript:alert(1)]']);
    expect(executable('<script>alert(1)</script>')).toEqual(['<script>']);
    expect(XSS_CORPUS.length).toBeGreaterThan(90);
  });
});

describe('Markdown: the post’s own media in the text', () => {
  it('places a picture as a figure with its variants, size, alt text and caption', () => {
    expect(html(`Before\n\n![](media:${photo.id})\n\nAfter`, media)).toBe(
      '<p>Before</p>\n<figure class="post-media post-media-image"><picture>' +
        '<source type="image/avif" srcset="/uploads/media/items/a/400.avif 400w" sizes="(max-width: 960px) 100vw, 928px" />' +
        '<source type="image/webp" srcset="/uploads/media/items/a/400.webp 400w" sizes="(max-width: 960px) 100vw, 928px" />' +
        '<img src="/uploads/media/items/a/800.jpeg" srcset="/uploads/media/items/a/800.jpeg 800w" sizes="(max-width: 960px) 100vw, 928px" width="1600" height="1200" alt="The red roadster" loading="lazy" decoding="async" />' +
        '</picture><figcaption>Parked at the lake</figcaption></figure>\n<p>After</p>\n',
    );
  });

  it('uses the alt text written in the reference over the item’s own', () => {
    expect(html(`![Close-up of the wheel](media:${photo.id})`, media)).toContain(
      'alt="Close-up of the wheel"',
    );
  });

  it('keeps a picture inside a sentence inline, without a figure', () => {
    const output = html(`Look ![](media:${photo.id}) here`, media);
    expect(output.startsWith('<p>Look <picture>')).toBe(true);
    expect(output).not.toContain('<figure');
  });

  it('places a video with its poster and YouTube through the privacy-enhanced player', () => {
    expect(html(`![](media:${clip.id})`, media)).toBe(
      '<figure class="post-media post-media-video"><video controls preload="none" playsinline src="/uploads/media/items/b/clip.mp4" poster="/uploads/media/items/b/poster.jpg" width="640" height="360"></video></figure>',
    );
    expect(html(`![](media:${youtube.id})`, media)).toBe(
      '<figure class="post-media post-media-youtube"><iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" title="Lap of the track" loading="lazy" allow="accelerometer; encrypted-media; gyroscope; picture-in-picture" allowfullscreen referrerpolicy="strict-origin-when-cross-origin"></iframe></figure>',
    );
  });

  it('leaves out media that is not processed, not the post’s, or unknown; the preview shows a placeholder', () => {
    expect(html(`![](media:${pending.id})\n\n![](media:nope)`, media)).toBe('');
    const preview = renderMarkdown(`![Wheel](media:new-1)`, { media, placeholders: true }).html;
    expect(preview).toBe(
      '<figure class="post-media post-media-placeholder"><span class="media-placeholder">Wheel</span></figure>',
    );
  });

  it('a link to a media reference is text only', () => {
    expect(html(`[see](media:${photo.id})`, media)).toBe('<p><a>see</a></p>\n');
  });

  it('replaces new items’ references with their ids', () => {
    const text = 'A ![x](media:new-1) B ![y](media:new-2) C ![z](media:keep) [w](media:new-1)';
    const replaced = replaceMediaRefs(
      text,
      new Map([
        ['new-1', 'id-1'],
        ['new-2', 'id-2'],
      ]),
    );
    expect(replaced).toBe('A ![x](media:id-1) B ![y](media:id-2) C ![z](media:keep) [w](media:id-1)');
  });
});

describe('Markdown: plain text, excerpt and reading time', () => {
  it('has no Markdown signs in the plain text and excerpt', () => {
    const rendered = renderMarkdown(
      '# Tyres\n\nFitted **four** new _tyres_ and [balanced](https://example.com) them.\n\n- one\n- two\n\n`code`',
    );
    expect(rendered.text).toBe('Tyres\nFitted four new tyres and balanced them.\none\ntwo\ncode');
    expect(rendered.excerpt).toBe('Tyres Fitted four new tyres and balanced them. one two code');
    expect(rendered.words).toBe(11);
    expect(rendered.readingMinutes).toBe(1);
  });

  it('counts 230 words a minute', () => {
    expect(renderMarkdown('word '.repeat(230)).readingMinutes).toBe(1);
    expect(renderMarkdown('word '.repeat(231)).readingMinutes).toBe(2);
    expect(renderMarkdown('').readingMinutes).toBe(0);
  });

  it('cuts the excerpt at a word boundary with ...', () => {
    const rendered = renderMarkdown('alpha '.repeat(100));
    expect(rendered.excerpt.endsWith('alpha...')).toBe(true);
    expect(rendered.excerpt.length).toBeLessThanOrEqual(303);
  });
});
