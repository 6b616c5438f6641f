// The fan-out bench's remote servers (`npm run bench -- federation`): one process listening on
// COUNT loopback ports from FIRST_PORT, each a fediverse server whose shared inbox is POST /inbox.
// Run apart from the bench (child_process.fork, with the first port and the count as arguments) so
// the stack's CPU figures leave its work out.
// Every POST is answered 202 and recorded (port, inbox, activity type and id, object type and id,
// whether it carried an HTTP signature, when it arrived); nothing is verified, since the bench
// measures the sender. The parent asks over IPC: { cmd: 'progress', objectId } answers how many
// ports have a Create of that object and when the last arrived; { cmd: 'report', objectId }
// answers the totals, duplicates included.
import { createServer } from 'node:http';

const FIRST_PORT = Number(process.argv[2] ?? 14200);
const COUNT = Number(process.argv[3] ?? 500);
/** Far above any activity the blog sends; a bigger body is cut off and counted as refused. */
const MAX_BODY = 1024 * 1024;

/** Every delivery: { port, path, type, id, objectType, objectId, signed, at } */
const deliveries = [];
/** Object id -> Map(port -> when its first Create of that object arrived, ms since the epoch). */
const firstCreate = new Map();
let refused = 0;
let gets = 0;

function record(port, path, body, headers) {
  let activity;
  try {
    activity = JSON.parse(body);
  } catch {
    refused++;
    return 400;
  }
  const object = typeof activity.object === 'object' && activity.object ? activity.object : null;
  const objectId = object?.id ?? (typeof activity.object === 'string' ? activity.object : null);
  const at = Date.now();
  deliveries.push({
    port,
    path,
    type: String(activity.type),
    id: activity.id ?? null,
    objectType: object ? String(object.type) : null,
    objectId,
    // RFC 9421 (signature-input) or draft-cavage (signature): which one Fedify's double knock chose.
    signed: Boolean(headers['signature-input'] || headers.signature),
    at,
  });
  if (activity.type === 'Create' && objectId) {
    const ports = firstCreate.get(objectId) ?? new Map();
    if (!ports.has(port)) ports.set(port, at);
    firstCreate.set(objectId, ports);
  }
  return 202;
}

function serve(port) {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      // The blog needs nothing from its followers' servers to deliver; counted to show it.
      gets++;
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const status =
        size > MAX_BODY
          ? (refused++, 413)
          : record(port, req.url, Buffer.concat(chunks).toString(), req.headers);
      res.writeHead(status).end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`port ${port}: ${error.message}`)));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function report(objectId) {
  const byType = {};
  const copies = new Map(); // `${port} ${activity id}` -> deliveries
  for (const d of deliveries) {
    const type = d.objectType ? `${d.type}(${d.objectType})` : d.type;
    byType[type] = (byType[type] ?? 0) + 1;
    const key = `${d.port} ${d.id}`;
    copies.set(key, (copies.get(key) ?? 0) + 1);
  }
  const ofPost = deliveries.filter((d) => d.type === 'Create' && d.objectId === objectId);
  return {
    deliveries: deliveries.length,
    byType,
    /** Activities a server received more than once (same port, same activity id): must be 0. */
    deliveredTwice: [...copies.values()].filter((n) => n > 1).length,
    extraCopies: [...copies.values()].reduce((sum, n) => sum + n - 1, 0),
    toSharedInbox: deliveries.filter((d) => d.path === '/inbox').length,
    toPersonalInbox: deliveries.filter((d) => d.path !== '/inbox').length,
    unsigned: deliveries.filter((d) => !d.signed).length,
    createOfPost: ofPost.length,
    serversWithCreate: firstCreate.get(objectId)?.size ?? 0,
    firstAt: ofPost.length ? Math.min(...ofPost.map((d) => d.at)) : null,
    /** What the Creates were of (a few), to see a post id the bench did not expect. */
    createdObjects: [...firstCreate.keys()].slice(0, 5),
    refused,
    gets,
  };
}

const servers = [];
try {
  for (let i = 0; i < COUNT; i++) servers.push(await serve(FIRST_PORT + i));
} catch (error) {
  process.send({ error: error.message });
  process.exit(1);
}
process.on('message', ({ cmd, objectId }) => {
  if (cmd === 'progress') {
    const ports = firstCreate.get(objectId);
    process.send({ reached: ports?.size ?? 0, lastAt: ports ? Math.max(...ports.values()) : null });
  } else if (cmd === 'report') {
    process.send(report(objectId));
  } else if (cmd === 'stop') {
    for (const server of servers) server.close();
    process.exit(0);
  }
});
// The parent going away (a crash, ^C) must not leave 500 ports taken.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true, first: FIRST_PORT, count: COUNT });
