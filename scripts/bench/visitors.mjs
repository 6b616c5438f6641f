// The bench's visitors, in a thread of their own (see startReaders in federation.mjs): a GET of
// each path every `everyMs`, whatever the last one is doing, each read posted to the parent.
import { parentPort, workerData } from 'node:worker_threads';

const { baseUrl, paths, everyMs } = workerData;
const timers = paths.map((path) =>
  setInterval(() => {
    const at = Date.now();
    const t0 = performance.now();
    fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(30_000) })
      .then(async (r) => (await r.arrayBuffer(), r.ok))
      .catch(() => false)
      .then((ok) => parentPort.postMessage({ path, at, ms: performance.now() - t0, ok }));
  }, everyMs),
);
parentPort.on('message', (message) => {
  if (message === 'stop') timers.forEach(clearInterval);
});
