import type { AddressInfo } from 'node:net';

/**
 * Where the renderer's loaders reach this gateway's API: the address the gateway listens on,
 * over loopback when that is every address (a pod's own IP may sit behind a network policy).
 */
export function apiBaseOf(listening: AddressInfo | string | null): string {
  if (!listening || typeof listening === 'string') {
    throw new Error('the gateway listens on no TCP port: rendered pages cannot reach its API');
  }
  const { address, port } = listening;
  if (address === '0.0.0.0' || address === '::') return `http://127.0.0.1:${port}`;
  const host = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
