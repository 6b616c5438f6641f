import type { Request } from 'express';
import type { GatewayConfig } from '../config.js';

/**
 * The site's public address for absolute links: SITE_URL, else the address this request
 * came to (X-Forwarded-Proto/Host behind the trusted proxy). Set SITE_URL in production:
 * a cache in front must never keep links built from a client's Host header.
 */
export function siteUrl(config: GatewayConfig, req: Request): string {
  return config.SITE_URL ?? `${req.protocol}://${req.host}`;
}
