import { readFile } from 'node:fs/promises';
import type { Plugin, Rolldown } from 'vite';

const BOOT_FILE = new URL('./boot.js', import.meta.url);
const STYLESHEET = /<link rel="stylesheet"(?: crossorigin)? href="\/(assets\/[^"]+\.css)">/g;
const ENTRY_SCRIPT = /<script type="module"(?: crossorigin)? src="(\/assets\/[^"]+\.js)"><\/script>/;

function asset(bundle: Rolldown.OutputBundle, fileName: string): Rolldown.OutputAsset {
  const output = bundle[fileName];
  if (output?.type !== 'asset') throw new Error(`${fileName} is not in the build`);
  return output;
}

/**
 * A reader's first page runs one script: a static import from the entry would be a second
 * download that only starts once the first has arrived. Rolldown 1.2 splits one out when a
 * module-level chunking step goes wrong (rolldown#10731: React moved to a chunk of its own when
 * an on-demand screen imported components/Link); this stops such a build.
 */
function assertSingleScript(bundle: Rolldown.OutputBundle, entryFileName: string): void {
  const entry = bundle[entryFileName];
  if (entry?.type !== 'chunk') throw new Error(`${entryFileName} is not in the build`);
  if (entry.imports.length > 0) {
    throw new Error(
      `the reader's entry script ${entryFileName} imports ${entry.imports.join(', ')}: one script expected`,
    );
  }
}

/**
 * The built index.html, made for pages the server renders (its gateway fills the shell):
 * - the stylesheet goes inline, so the first paint waits on no second request;
 * - the entry module is started by boot.js once the page has loaded (see there), instead of
 *   being fetched and run while the page paints.
 */
export function readerFirstShell(): Plugin {
  return {
    name: 'blog-reader-first-shell',
    apply: 'build',
    async generateBundle() {
      // Comments stay in the source: every reader downloads this file, and it is short enough
      // to write small by hand (a minifier's output, with its source-map comment, was larger).
      const source = (await readFile(BOOT_FILE, 'utf8')).replace(/^\s*\/\/.*\n/gm, '');
      this.emitFile({ type: 'asset', name: 'boot.js', source });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle) return html;
        const boot = Object.values(bundle).find(
          (output) => output.type === 'asset' && output.names.includes('boot.js'),
        );
        const entry = ENTRY_SCRIPT.exec(html)?.[1];
        if (!boot || !entry) throw new Error('index.html: no entry script, or boot.js was not emitted');
        assertSingleScript(bundle, entry.slice(1));
        return html
          .replace(STYLESHEET, (_, fileName: string) => {
            const css = String(asset(bundle, fileName).source);
            if (css.includes('</style')) throw new Error(`${fileName} cannot go inline`);
            return `<style>${css}</style>`;
          })
          .replace(ENTRY_SCRIPT, () => `<script defer src="/${boot.fileName}" data-app="${entry}"></script>`);
      },
    },
  };
}
