import { stopTestPostgres } from './global-setup.mjs';

export default async function globalTeardown() {
  await stopTestPostgres();
}
