// `minio server DIR [...]`: s3rver on 0.0.0.0:9000 keeping buckets in DIR, signing with
// MINIO_ROOT_USER / MINIO_ROOT_PASSWORD (s3rver's own S3RVER pair stays valid too).
import S3rver from 's3rver';
import account from 's3rver/lib/models/account.js';

const { DUMMY_ACCOUNT } = account;

const [command, directory = '/data'] = process.argv.slice(2);
if (command !== 'server') {
  console.error('This MinIO stand-in only runs: minio server DIR');
  process.exit(2);
}
const user = process.env.MINIO_ROOT_USER;
const password = process.env.MINIO_ROOT_PASSWORD;
if (user && password) DUMMY_ACCOUNT.createKeyPair(user, password);
// Path-style only: a host name like `minio` is the server, not a bucket.
const server = new S3rver({ address: '0.0.0.0', port: 9000, directory, silent: false, vhostBuckets: false });
// MinIO's health endpoints (infra/k8s's probes call them), before s3rver reads them as a bucket.
server.middleware.unshift(async (ctx, next) => {
  if (ctx.method === 'GET' && /^\/minio\/health\/(live|ready)$/.test(ctx.path)) ctx.status = 200;
  else await next();
});
server.run().then(() => console.log(`S3 (s3rver) listening on :9000, data in ${directory}`));
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => server.close().then(() => process.exit(0)));
