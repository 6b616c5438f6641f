/**
 * Shared by the deploy.*.spec.ts files: where the deployment files are, what each Node process
 * needs, the kustomize rendering of infra/k8s and the small helpers the checks use. Loaded once
 * per spec file; nothing here starts a process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are free-form YAML */
export type Obj = Record<string, any>;

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const K8S_DIR = join(ROOT, 'infra/k8s');
export const NGINX_CONF = join(ROOT, 'infra/nginx/nginx.conf');
export const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
export const COMPOSE_SCALE_FILE = join(ROOT, 'docker-compose.scale.yml');
export const DOCKERFILE = join(ROOT, 'infra/Dockerfile');

// ---- what each process needs ---------------------------------------------------------

export const NODE_PROCESSES = {
  gateway: 'gateway/dist/main.js',
  auth: 'services/auth/dist/main.js',
  posts: 'services/posts/dist/main.js',
  media: 'services/media/dist/main.js',
  mail: 'services/mail/dist/main.js',
  social: 'services/social/dist/main.js',
} as const;
export type NodeProcess = keyof typeof NODE_PROCESSES;
export const SERVICES = ['auth', 'posts', 'media', 'mail', 'social'] as const;
export const SERVICE_PORTS = { auth: 4001, posts: 4002, media: 4003, mail: 4004, social: 4005 } as const;

/** How the processes call each other: NATS on Kubernetes and in the compose scale override, TCP in compose. */
export const TRANSPORT = ['TRANSPORT'];
export const DATABASE = ['DATABASE_URL', 'BIND_HOST', 'NODE_ENV', 'LOG_LEVEL', ...TRANSPORT];
/** Processes that run two replicas by default; media scales on its queue. */
export const REPLICATED = ['gateway', 'auth', 'posts', 'mail', 'social'] as const;
export const S3 = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];

/** The variables each process must be given (docs/configuration.md and the issues' settings). */
export const REQUIRED_ENV: Record<NodeProcess, string[]> = {
  gateway: [
    'PORT',
    'HOST',
    'NODE_ENV',
    'LOG_LEVEL',
    'JWT_SECRET',
    'TRUST_PROXY',
    'SITE_URL',
    'APP_SHELL',
    ...TRANSPORT,
    ...S3,
  ],
  // TOTP_ENCRYPTION_KEY: two-factor secrets at rest; without it rotating JWT_SECRET loses them.
  auth: [...DATABASE, 'AUTH_PORT', 'JWT_SECRET', 'TOTP_ENCRYPTION_KEY', 'DATA_DIR'],
  // posts deletes the files of what it deletes: without S3 it fell back to a local folder
  // (found when the compose stack first ran for real).
  posts: [...DATABASE, 'POSTS_PORT', 'REDIS_URL', 'SITE_URL', ...S3],
  media: [...DATABASE, 'MEDIA_PORT', 'REDIS_URL', ...S3],
  mail: [...DATABASE, 'MAIL_PORT', 'REDIS_URL', 'SMTP_URL', 'MAIL_FROM', 'OWNER_EMAIL', 'SITE_URL'],
  social: [...DATABASE, 'SOCIAL_PORT', 'SITE_URL'],
};
/** nginx serves the web app in these deployments; the gateway must not serve it too. */
export const FORBIDDEN_ENV: Record<NodeProcess, string[]> = {
  gateway: ['WEB_DIST'],
  auth: [],
  posts: [],
  media: [],
  mail: [],
  social: [],
};

/** Variables whose values are secrets: never a literal, never a default. */
export const SECRET_NAME = /SECRET|PASSWORD|ACCESS_KEY|TOKEN|ENCRYPTION_KEY|SMTP_URL/;

// ---- helpers ---------------------------------------------------------------------------

export function which(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export type TestFn = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;

/** `it` when `command` is installed; otherwise a skipped test whose name says why (.ci/run installs them all). */
export function ifInstalled(command: string): TestFn {
  if (which(command)) return it;
  return (name, fn, timeout) => it.skip(`${name} (skipped: ${command} not installed)`, fn, timeout);
}

export function parseYamlDocuments(file: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  const objects: Obj[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS();
    if (value !== null && value !== undefined) objects.push(value);
  }
  return objects;
}

export const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
]);
export const SUPPORTED_KUSTOMIZE_KEYS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images']);

/** Renders infra/k8s the way kustomize does for the features it uses: resources, namespace, images. */
export function renderKustomization(dir: string): Obj[] {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Obj;
  const unsupported = Object.keys(kustomization).filter((key) => !SUPPORTED_KUSTOMIZE_KEYS.has(key));
  if (unsupported.length > 0) {
    throw new Error(
      `kustomization.yaml uses ${unsupported.join(', ')}: teach renderKustomization (infra/test/support/deploy.ts)`,
    );
  }
  const objects = (kustomization.resources as string[]).flatMap((resource) => {
    const path = join(dir, resource);
    if (!existsSync(path) || !path.endsWith('.yaml'))
      throw new Error(`resource ${resource} is not a YAML file`);
    return parseYamlDocuments(path);
  });
  const images = (kustomization.images ?? []) as { name: string; newName?: string; newTag?: string }[];
  for (const object of objects) {
    if (kustomization.namespace && !CLUSTER_SCOPED.has(object.kind)) {
      object.metadata.namespace = kustomization.namespace;
    }
    for (const container of podSpecOf(object) ? allContainers(podSpecOf(object)!) : []) {
      const [name, tag] = splitImage(container.image);
      const override = images.find((image) => image.name === name);
      if (override) container.image = `${override.newName ?? name}:${override.newTag ?? tag ?? 'latest'}`;
    }
  }
  return objects;
}

export function splitImage(image: string): [string, string | undefined] {
  const match = /^(.*?)(?::([^:/]+))?$/.exec(image)!;
  return [match[1], match[2]];
}

export function podSpecOf(object: Obj): Obj | undefined {
  if (['Deployment', 'StatefulSet', 'Job'].includes(object.kind)) return object.spec?.template?.spec;
  return undefined;
}

export function allContainers(podSpec: Obj): Obj[] {
  return [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])];
}

export const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

/** Fields of a Kubernetes container (v1.33); the schemas themselves accept unknown fields. */
export const CONTAINER_FIELDS = new Set([
  'name',
  'image',
  'command',
  'args',
  'workingDir',
  'ports',
  'envFrom',
  'env',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'volumeMounts',
  'volumeDevices',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
  'terminationMessagePath',
  'terminationMessagePolicy',
  'imagePullPolicy',
  'securityContext',
  'stdin',
  'stdinOnce',
  'tty',
]);
export const PROBE_FIELDS = new Set([
  'exec',
  'httpGet',
  'tcpSocket',
  'grpc',
  'initialDelaySeconds',
  'timeoutSeconds',
  'periodSeconds',
  'successThreshold',
  'failureThreshold',
  'terminationGracePeriodSeconds',
]);

/** Bytes (memory) or cores (cpu) of a Kubernetes quantity. */
export function quantity(value: string | number): number {
  const match = /^([0-9.]+)(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/.exec(String(value));
  if (!match) throw new Error(`not a quantity: ${value}`);
  const factor: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    Ki: 1024,
    M: 1e6,
    Mi: 1024 ** 2,
    G: 1e9,
    Gi: 1024 ** 3,
    T: 1e12,
    Ti: 1024 ** 4,
  };
  return Number(match[1]) * factor[match[2] ?? ''];
}

export const id = (object: Obj) =>
  `${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name}`;

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createTcpServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 15000 });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

// ---- Kubernetes ------------------------------------------------------------------------

// ---- the rendered manifests ------------------------------------------------------------

/** infra/k8s rendered, with the look-ups the Kubernetes checks share. */
export function loadManifests() {
  const objects = renderKustomization(K8S_DIR);
  const byKind = (kind: string) => objects.filter((object) => object.kind === kind);
  const find = (kind: string, name: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name);
  const workloads = objects.filter((object) => ['Deployment', 'StatefulSet', 'Job'].includes(object.kind));
  const configMaps = new Map(byKind('ConfigMap').map((cm) => [cm.metadata.name as string, cm]));
  const secrets = new Map(byKind('Secret').map((secret) => [secret.metadata.name as string, secret]));

  /** Every variable a container gets: its env plus the keys of the ConfigMaps/Secrets in envFrom. */
  function envNames(container: Obj): string[] {
    const names = (container.env ?? []).map((entry: Obj) => entry.name as string);
    for (const source of container.envFrom ?? []) {
      const ref = source.configMapRef ?? source.secretRef;
      const data = source.configMapRef ? configMaps.get(ref.name)?.data : secrets.get(ref.name)?.stringData;
      if (!data) throw new Error(`${container.name}: envFrom names a missing object ${ref.name}`);
      names.push(...Object.keys(data));
    }
    return names;
  }

  /** The literal value a container sees for a variable (env first, then envFrom). */
  function envValue(container: Obj, name: string): string | undefined {
    const entry = (container.env ?? []).find((e: Obj) => e.name === name);
    if (entry) return entry.value;
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef && configMaps.get(source.configMapRef.name)?.data?.[name] !== undefined) {
        return configMaps.get(source.configMapRef.name)!.data[name];
      }
    }
    return undefined;
  }

  function nodeContainer(name: NodeProcess): Obj {
    const deployment = find('Deployment', name);
    expect(deployment).toBeDefined();
    const containers = deployment!.spec.template.spec.containers as Obj[];
    expect(containers).toHaveLength(1);
    return containers[0];
  }

  return { objects, byKind, find, workloads, configMaps, secrets, envNames, envValue, nodeContainer };
}
