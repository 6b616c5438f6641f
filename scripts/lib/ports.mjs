import { createServer } from 'node:net';

/** A TCP port that was free a moment ago on 127.0.0.1 (plain JS: the launcher and Jest's setup run it unbuilt). */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}
