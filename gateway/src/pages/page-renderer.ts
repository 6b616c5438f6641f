import type { RenderPage } from '@blog/contracts';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where the web's page renderer is: SSR_ENTRY, else web/dist-ssr/entry-server.js beside the
 * app shell's web/dist (as `npm run build` and the app image lay them out). Null when there is
 * none: pages are then the shell with their tags, drawn in the browser.
 */
export function rendererFile(shellFile: string | undefined, configured: string | undefined): string | null {
  if (configured) return resolve(configured);
  if (!shellFile) return null;
  const beside = join(dirname(resolve(shellFile)), '..', 'dist-ssr', 'entry-server.js');
  return existsSync(beside) ? beside : null;
}

/** Loads the renderer module once, at start-up (a missing or broken build stops the gateway). */
export async function loadRenderer(file: string): Promise<RenderPage> {
  const module = (await import(pathToFileURL(file).href)) as { render?: RenderPage };
  if (typeof module.render !== 'function') throw new Error(`${file} has no render function`);
  return module.render;
}
