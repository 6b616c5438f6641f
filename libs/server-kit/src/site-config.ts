import { parseSiteConfig, SiteConfigError, type SiteConfig } from '@blog/contracts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The shipped default: config/site.json at the repository root (also in the container image). */
export const DEFAULT_SITE_CONFIG = fileURLToPath(new URL('../../../config/site.json', import.meta.url));

/** Reads and validates the owner's site file; a bad file stops start-up with the entry that is wrong. */
export function loadSiteConfig(path: string = process.env.SITE_CONFIG ?? DEFAULT_SITE_CONFIG): SiteConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SiteConfigError(`Cannot read the site config ${path}: ${(error as Error).message}`);
  }
  try {
    return parseSiteConfig(raw);
  } catch (error) {
    if (error instanceof SiteConfigError) throw new SiteConfigError(`${error.message} (in ${path})`);
    throw error;
  }
}
