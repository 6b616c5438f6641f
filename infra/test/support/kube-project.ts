// The Kubernetes test's project (infra/test/k8s.spec.ts): infra/k8s rendered by `kubectl kustomize`
// through an overlay (the images built here, one replica each), turned into what Debian's podman
// 4.3 `kube play` takes, and played workload by workload on a network of its own. Each change the
// test makes to the rendered objects is listed in DIFFERENCES with its reason, and printed.
// Set up once for the whole file: the image builds and the start are most of its time.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Browser } from 'playwright-core';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { podmanEnv, STAND_INS } from '../images/build.mjs';
import { launchBrowser } from '../../../e2e/support/browser.js';
import { freePort } from '../../../libs/server-kit/src/testing/ports.js';
import type { Obj } from './deploy.js';
import {
  buildImages,
  commandRunner,
  mailSink,
  missingPrograms,
  ROOT,
  siteApi,
  until,
  type Api,
  type Json,
  type Run,
} from './podman.js';

export type { Json } from './podman.js';

const K8S_DIR = join(ROOT, 'infra/k8s');
// catatonit: podman 4.3 builds the pods' infra (pause) image from it.
const missing = missingPrograms(['podman', 'kubectl', 'debootstrap', 'catatonit']);
/** describe, or describe.skip with the missing programs in its name. */
export const kubeSuite = missing.length ? describe.skip : describe;
export const kubeSuiteName = `podman kube play of the rendered infra/k8s${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`;

export const PROJECT = `blogk8s${process.pid}`;
export const ADMIN = { username: 'owner', password: 'kube-owner-password-1' };
/** Where config.yaml has posts (and the upgrade) put backups: a bucket on the in-cluster MinIO (the first backup makes it). */
export const BACKUP_TARGET = 's3://blog-backups/blog';
/** The values of the Secret: the keys of secret.example.yaml left empty there, and the optional ones. */
export const SECRET_VALUES: Record<string, string> = {
  JWT_SECRET: 'kube-test-jwt-secret-0123456789abcdefghijkl',
  TOTP_ENCRYPTION_KEY: 'kube-test-totp-key-0123456789abcdefghijklmn',
  POSTGRES_PASSWORD: 'kubepg0123456789',
  S3_ACCESS_KEY_ID: 'blog-media',
  S3_SECRET_ACCESS_KEY: 'kubes3secret0123',
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_PASSWORD: ADMIN.password,
  BACKUP_PASSPHRASE: 'kube-test-backup-passphrase',
};

/**
 * Where podman 4.3's `kube play` is not a cluster, and what the test does about it. Printed by
 * the test; each is applied in toPodman() below.
 */
export const DIFFERENCES = {
  overlay:
    'an overlay (kustomize images: and replicas:) points the images at the ones built here (the app and web from infra/Dockerfile, stand-ins for the rest) and sets one replica of everything, to keep the test small',
  namespace: 'podman has no namespaces: the Namespace is not played and names are global on the machine',
  service:
    'kube play makes no Services: each pod joins a network of its own with the names of the Services that select it as DNS aliases (aardvark-dns), so postgres, redis, nats, minio, mailpit, gateway and web resolve as in the namespace; no cluster IP, no load balancing over replicas. Without the stable address of a Service, a pod played again has a new one, which nginx (resolving gateway once, at its start) does not see: the test plays web again after gateway',
  statefulSet:
    'kube play 4.3 takes no StatefulSet: postgres and minio are played as Deployments (pods postgres-pod-0, minio-pod-0), each volumeClaimTemplate as a PersistentVolumeClaim named as the StatefulSet would name it (data-postgres-0), which podman makes a named volume',
  claims:
    'kube play 4.3 makes a podman volume of each PersistentVolumeClaim but fails on one whose volume exists (Kubernetes leaves it as it is): the claims are played once, on their own, and a workload played again finds its volume',
  job: 'kube play 4.3 takes no Job: minio-create-bucket is played as a Pod with restartPolicy OnFailure, and the test waits for it to exit 0',
  secret:
    "kube play 4.3 stores a played Secret as YAML but reads secretKeyRef from a podman secret holding JSON (Secret not valid JSON): the test fills secret.example.yaml's keys and creates the podman secret blog-secrets as JSON of base64 values",
  configMap:
    'the ConfigMap goes in with --configmap (SITE_URL set to the address the test publishes, as the operator sets it)',
  variables:
    'podman does not expand $(VAR) in env values (DATABASE_URL keeps $(POSTGRES_PASSWORD) literally): the test expands them as Kubernetes does; and podman lets envFrom override env where Kubernetes does the reverse, so the test checks that no container has a variable in both',
  ports:
    'kube play 4.3 publishes every containerPort on the host (0.0.0.0:5432, 6379, ...), where a cluster publishes none: the test drops containerPorts (after reading named probe ports from them) and publishes only web:8080 and mailpit:8025 on 127.0.0.1, standing in for the Ingress and kubectl port-forward',
  probes:
    'kube play 4.3 turns only the livenessProbe into a podman health check (startup and readiness probes are dropped), runs httpGet as curl -f and tcpSocket as nc -z inside the container, reads named ports as port 0 and writes an empty host for tcpSocket: and times the whole exec into the container (a runc start: seconds on a busy machine) where the kubelet times the check alone: the test gives probes their port numbers, tcpSocket host localhost and a timeout of at least 10 s, mounts small bash stand-ins for curl and nc (the images carry neither) at /usr/local/sbin, runs the startup and readiness probes itself (podman exec) before the journey, and runs the health checks itself (no systemd timers here)',
  resources:
    'memory limits and requests become the cgroup limit and reservation, CPU limits a CFS quota; CPU requests are dropped (no CPU shares); emptyDir sizeLimit is not enforced',
  securityContext:
    'runAsUser/runAsGroup, readOnlyRootFilesystem, allowPrivilegeEscalation and dropped capabilities apply; runAsNonRoot, fsGroup and seccompProfile are not read (podman chowns a new volume to the container user and applies its default seccomp profile)',
  notPlayed:
    'Ingress, NetworkPolicy, HorizontalPodAutoscaler and PodDisruptionBudget have no podman counterpart: they are not played (no traffic is restricted, nothing scales or is drained) and keep their schema checks in deploy.k8s-*.spec.ts',
  initContainers:
    "kube play 4.3 starts a pod's containers without waiting for its init containers to end, then fails removing an init container of its default type once that still runs (failed to remove once init container ... as it is running), and restarts one of type always for ever under restartPolicy Always: the test plays each workload's init containers as a pod of their own first (`${name}-init`, restartPolicy Never, the same env and volumes), waits for each to exit 0 (podman wait), then plays the workload without them, as the kubelet would run them",
  ordering:
    'kube play has no crash-loop back-off: the data stores are played first and the Node processes once their probes pass',
};

/** A workload as played: its pod template after the changes of DIFFERENCES, its claims and its DNS aliases. */
export interface Play {
  /** The workload's name; its pod is `${name}-pod-0` for a Deployment, `name` for a Pod. */
  name: string;
  kind: 'Deployment' | 'Pod';
  pod: string;
  /** The YAML file `podman kube play` gets. */
  file: string;
  /** The names of the Services that select it: its DNS aliases. */
  aliases: string[];
  /** The pod template as played. */
  template: Obj;
  /** The PersistentVolumeClaims played before it (a StatefulSet's volumeClaimTemplates). */
  claims: Obj[];
  /** The containers' names as podman gives them (`${pod}-${container}`), by container name. */
  containers: Record<string, string>;
  /** Its init containers, as a pod played and waited for before it (DIFFERENCES.initContainers). */
  init?: Play;
}

/** A probe as podman 4.3's kube play runs it: its command inside the container. */
export function probeCommand(probe: Obj): string[] {
  if (probe.exec) return probe.exec.command as string[];
  if (probe.httpGet) {
    const { scheme = 'HTTP', host = 'localhost', port, path = '/' } = probe.httpGet;
    return ['curl', '-f', `${String(scheme).toLowerCase()}://${host}:${port}${path}`];
  }
  if (probe.tcpSocket) return ['nc', '-z', '-v', probe.tcpSocket.host ?? '', String(probe.tcpSocket.port)];
  throw new Error(`a probe podman 4.3 cannot run: ${JSON.stringify(probe)}`);
}

/** The health check podman 4.3 makes of a livenessProbe (pkg/specgen/generate/kube: setupLivenessProbe). */
export function healthCheckOf(probe: Obj) {
  return {
    Test: ['CMD-SHELL', ...`${probeCommand(probe).join(' ')} || exit 1`.split(' ')],
    Interval: (probe.periodSeconds ?? 10) * 1e9,
    Timeout: (probe.timeoutSeconds ?? 1) * 1e9,
    Retries: probe.failureThreshold ?? 3,
  };
}

// Bash stand-ins for the two programs podman 4.3's probes call (every image here has bash, none
// has curl or nc): an HTTP GET that fails unless the answer is 2xx or 3xx, as the kubelet judges
// one, and a TCP connect.
const CURL = `#!/bin/bash
# curl -f URL, as podman 4.3 runs an httpGet probe: exit 0 on a 2xx or 3xx answer.
url=\${@: -1}; rest=\${url#*://}; hostport=\${rest%%/*}; path=/\${rest#*/}
[ "$rest" = "$hostport" ] && path=/
host=\${hostport%:*}; port=\${hostport##*:}; [ "$host" = localhost ] && host=127.0.0.1
exec 3<>"/dev/tcp/$host/$port" || exit 7
printf 'GET %s HTTP/1.0\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n' "$path" "$hostport" >&3
read -r -t 10 _ status _ <&3 || exit 28
[ "$status" -ge 200 ] && [ "$status" -lt 400 ] || exit 22
`;
const NC = `#!/bin/bash
# nc -z -v HOST PORT, as podman 4.3 runs a tcpSocket probe: exit 0 when the port takes a connection.
host=\${@: -2:1}; port=\${@: -1}; [ "$host" = localhost ] && host=127.0.0.1
exec 3<>"/dev/tcp/$host/$port"
`;
const PROBE_TOOLS = '/usr/local/sbin';

const isStore = (spec: Obj) =>
  !(spec.containers as Obj[]).some((c) => /\/blog-(app|web):/.test(c.image as string));

/** $(NAME) in `value` replaced by NAME's value in `defined`, as Kubernetes expands env values ($$ escapes). */
function expand(value: string, defined: Map<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name?: string) =>
    name === undefined ? '$' : (defined.get(name) ?? whole),
  );
}

/**
 * The rendered objects as podman 4.3 plays them: one play per workload (its pod template with
 * the changes of DIFFERENCES, and its claims), the ConfigMap for --configmap and the Secret's data.
 */
export function toPodman(
  objects: Obj[],
  options: { site: string; webPort: number; mailPort: number; tools: string },
) {
  const configMaps = new Map<string, Record<string, string>>();
  const services: Obj[] = [];
  const workloads: { kind: 'Deployment' | 'Pod'; name: string; template: Obj; claims: Obj[] }[] = [];
  let configMap: Obj | undefined;
  let secret: Record<string, string> | undefined;
  const notPlayed: string[] = [];
  for (const object of objects) {
    const name = object.metadata.name as string;
    switch (object.kind) {
      case 'ConfigMap':
        configMap = structuredClone(object);
        configMap!.data.SITE_URL = options.site;
        configMaps.set(name, configMap!.data);
        break;
      case 'Secret': {
        secret = {};
        for (const [key, value] of Object.entries({ ...SECRET_VALUES, ...object.stringData })) {
          const given = (value as string) || SECRET_VALUES[key];
          if (!given) throw new Error(`the Secret's key ${key} has no value in SECRET_VALUES: add one`);
          secret[key] = given;
        }
        break;
      }
      case 'Service':
        services.push(object);
        break;
      case 'Deployment':
        workloads.push({
          kind: 'Deployment',
          name,
          template: structuredClone(object.spec.template),
          claims: [],
        });
        break;
      case 'StatefulSet': {
        const template = structuredClone(object.spec.template);
        const claims = ((object.spec.volumeClaimTemplates ?? []) as Obj[]).map((claim) => {
          const claimName = `${claim.metadata.name}-${name}-0`;
          template.spec.volumes = [
            ...(template.spec.volumes ?? []),
            { name: claim.metadata.name, persistentVolumeClaim: { claimName } },
          ];
          return {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: claimName, labels: { ...claim.metadata.labels, 'blog.test/project': PROJECT } },
            spec: claim.spec,
          };
        });
        workloads.push({ kind: 'Deployment', name, template, claims });
        break;
      }
      case 'Job':
        workloads.push({ kind: 'Pod', name, template: structuredClone(object.spec.template), claims: [] });
        break;
      case 'Namespace':
      case 'Ingress':
      case 'NetworkPolicy':
      case 'HorizontalPodAutoscaler':
      case 'PodDisruptionBudget':
        notPlayed.push(`${object.kind}/${name}`);
        break;
      default:
        throw new Error(
          `${object.kind}/${name}: teach toPodman (infra/test/support/kube-project.ts) this kind`,
        );
    }
  }
  if (!configMap || !secret) throw new Error('the rendered manifests have no ConfigMap or no Secret');

  const plays = workloads.map(({ kind, name, template, claims }): Play => {
    const spec = template.spec as Obj;
    const labels = { ...template.metadata.labels, 'blog.test/project': PROJECT };
    template.metadata.labels = labels;
    const pod = kind === 'Deployment' ? `${name}-pod-0` : name;
    let needsTools = false;
    for (const container of [...(spec.initContainers ?? []), ...spec.containers] as Obj[]) {
      // Variables as the container sees them, in Kubernetes' order: envFrom, then env in turn.
      const defined = new Map<string, string>();
      const fromConfig = new Set<string>();
      for (const source of container.envFrom ?? [])
        for (const [key, value] of Object.entries(configMaps.get(source.configMapRef?.name) ?? {})) {
          defined.set(key, value);
          fromConfig.add(key);
        }
      for (const entry of (container.env ?? []) as Obj[]) {
        if (fromConfig.has(entry.name))
          throw new Error(
            `${name}/${container.name}: ${entry.name} is in both env and envFrom (podman 4.3 keeps envFrom's)`,
          );
        const ref = entry.valueFrom?.secretKeyRef ?? entry.valueFrom?.configMapKeyRef;
        if (entry.value !== undefined) {
          entry.value = expand(entry.value, defined);
          defined.set(entry.name, entry.value);
        } else if (ref) {
          const value = entry.valueFrom.secretKeyRef ? secret![ref.key] : configMaps.get(ref.name)?.[ref.key];
          if (value !== undefined) defined.set(entry.name, value);
        }
      }
      // Named probe ports become numbers; then the containerPorts go (see DIFFERENCES.ports).
      const ports = new Map<string, number>(
        ((container.ports ?? []) as Obj[]).map((port) => [port.name, port.containerPort]),
      );
      let probesNeedTools = false;
      for (const kindOfProbe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        if (container[kindOfProbe])
          container[kindOfProbe].timeoutSeconds = Math.max(container[kindOfProbe].timeoutSeconds ?? 1, 10);
        const handler = container[kindOfProbe]?.httpGet ?? container[kindOfProbe]?.tcpSocket;
        if (!handler) continue;
        probesNeedTools = needsTools = true;
        if (typeof handler.port === 'string') handler.port = ports.get(handler.port);
        if (container[kindOfProbe].tcpSocket) handler.host ??= 'localhost';
      }
      const published = { web: [8080, options.webPort], mailpit: [8025, options.mailPort] }[name];
      delete container.ports;
      if (published)
        container.ports = [{ containerPort: published[0], hostPort: published[1], hostIP: '127.0.0.1' }];
      if (probesNeedTools)
        container.volumeMounts = [
          ...(container.volumeMounts ?? []),
          { name: 'probe-tools', mountPath: PROBE_TOOLS, readOnly: true },
        ];
    }
    if (needsTools)
      spec.volumes = [
        ...(spec.volumes ?? []),
        { name: 'probe-tools', hostPath: { path: options.tools, type: 'Directory' } },
      ];
    const aliases = services
      .filter((service) =>
        Object.entries(service.spec.selector ?? {}).every(([key, value]) => labels[key] === value),
      )
      .map((service) => service.metadata.name as string);
    const containerNames = (of: string, list: Obj[]) =>
      Object.fromEntries(list.map((c) => [c.name as string, `${of}-${c.name}`]));
    let init: Play | undefined;
    if (spec.initContainers?.length) {
      const initName = `${name}-init`;
      const { initContainers, ...podSpec } = spec;
      init = {
        name: initName,
        kind: 'Pod',
        pod: initName,
        file: '',
        aliases: [],
        template: {
          metadata: {
            labels: { 'app.kubernetes.io/name': initName, 'blog.test/project': PROJECT },
          },
          spec: { ...podSpec, containers: initContainers, restartPolicy: 'Never' },
        },
        claims: [],
        containers: containerNames(initName, initContainers),
      };
      delete spec.initContainers;
    }
    return {
      name,
      kind,
      pod,
      file: '',
      aliases,
      template,
      claims,
      containers: containerNames(pod, spec.containers),
      init,
    };
  });
  // The data stores first, then the Node processes and nginx (DIFFERENCES.ordering).
  plays.sort((a, b) => Number(!isStore(a.template.spec)) - Number(!isStore(b.template.spec)));
  return { plays, configMap, secret, notPlayed };
}

/**
 * podman reads YAML 1.1, where an unquoted off, yes or no is a boolean (BACKUP_SCHEDULE: 'off'
 * in the ConfigMap arrived as false): the files it gets are written as YAML 1.1, which quotes them.
 */
const PODMAN_YAML = { version: '1.1' } as const;

/** The YAML `podman kube play` gets for one play's Deployment or Pod. */
function playYaml(play: Play): string {
  const { template } = play;
  const workload =
    play.kind === 'Deployment'
      ? {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: play.name, labels: template.metadata.labels },
          spec: {
            replicas: 1,
            selector: {
              matchLabels: { 'app.kubernetes.io/name': template.metadata.labels['app.kubernetes.io/name'] },
            },
            template,
          },
        }
      : {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: play.name,
            labels: template.metadata.labels,
            annotations: template.metadata.annotations,
          },
          spec: template.spec,
        };
  return stringify(workload, PODMAN_YAML);
}

export interface KubeProject {
  /** The site through web (nginx), as the Ingress would route to it. */
  site: string;
  /** Mailpit's HTTP API (what `kubectl port-forward svc/mailpit 8025` gives). */
  mailUrl: string;
  browser: Browser;
  timings: Record<string, number>;
  /** The objects `kubectl kustomize` rendered through the overlay, before the changes for podman. */
  rendered: Obj[];
  plays: Play[];
  /** The kinds and names the test does not play (DIFFERENCES.notPlayed, .namespace). */
  notPlayed: string[];
  /** The podman volumes the claims made, by claim name. */
  claims: string[];
  run: Run;
  api: Api;
  until: typeof until;
  mail(match: (message: Json) => boolean): Promise<Json>;
  /** The play of a workload by name. */
  play(name: string): Play;
  /** podman's name of a workload's (first) container. */
  container(name: string): string;
  /** `podman kube play` of one workload again, as the project plays it (after a `podman kube down` of it). */
  replay(name: string): void;
  /** `podman kube down` of one workload: its pod is removed, its claims' volumes stay. */
  down(name: string): void;
  /** Runs a container's probe once, as podman 4.3 would (podman exec); true when it passes. */
  probe(container: string, probe: Obj): boolean;
  /** Waits for a play's startup probes (within the kubelet's budget of each) and then its readiness probes. */
  ready(play: Play): Promise<void>;
  /** Waits for a Job's pod to end; its containers' logs once all exited 0. */
  finished(play: Play): Promise<string>;
  /** Plays one more workload (a Job, as a Pod) with the rendered ConfigMap and Secret; removed with the rest. */
  playMore(workload: Obj): Play;
}

/** Builds the images, renders and plays infra/k8s before the file's tests; removes all of it after. */
export function useKubeProject(): KubeProject {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const project = { timings: {} } as KubeProject;
  const run = commandRunner(() => ({ cwd: dir, env }));
  project.run = run;
  project.api = siteApi(() => project.site);
  project.until = until;
  project.mail = mailSink(() => project.mailUrl);
  project.play = (name) => {
    const found = project.plays.find((play) => play.name === name);
    if (!found) throw new Error(`no play ${name}`);
    return found;
  };
  project.container = (name) => Object.values(project.play(name).containers)[0]!;
  const network = PROJECT;
  const configMapFile = () => join(dir, 'configmap.yaml');
  project.replay = (name) => {
    const play = project.play(name);
    if (play.init) {
      run('podman', [
        'kube',
        'play',
        '--replace',
        '--network',
        network,
        '--configmap',
        configMapFile(),
        play.init.file,
      ]);
      for (const container of Object.values(play.init.containers)) {
        const code = run('podman', ['wait', container], { timeoutMs: 600_000 }).trim();
        if (code !== '0')
          throw new Error(`${container} exited ${code}:\n${run('podman', ['logs', container]).slice(-3000)}`);
      }
    }
    run('podman', [
      'kube',
      'play',
      '--replace',
      '--network',
      play.aliases.length ? `${network}:${play.aliases.map((alias) => `alias=${alias}`).join(',')}` : network,
      '--configmap',
      configMapFile(),
      play.file,
    ]);
  };
  project.down = (name) => {
    run('podman', ['kube', 'down', project.play(name).file]);
  };
  project.probe = (container, probe) =>
    spawnSync('podman', ['exec', container, ...probeCommand(probe)], {
      env,
      stdio: 'ignore',
      timeout: (probe.timeoutSeconds ?? 1) * 1000,
    }).status === 0;
  /** The end of every played container's log: what a probe that never passed leaves to read. */
  const logTails = () =>
    project.plays
      .flatMap((p) => Object.values(p.containers))
      .map((name) => {
        const log = spawnSync('podman', ['logs', '--tail', '15', name], { env, encoding: 'utf8' });
        return `--- ${name}\n${(log.stdout ?? '') + (log.stderr ?? '')}`;
      })
      .join('\n');
  project.ready = async (play) => {
    try {
      await probesPass(play);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${logTails()}`, { cause: error });
    }
  };
  const probesPass = async (play: Play) => {
    for (const container of play.template.spec.containers as Obj[]) {
      const name = play.containers[container.name]!;
      const { startupProbe: startup, readinessProbe: readiness } = container;
      // The kubelet restarts a container whose startup probe fails failureThreshold times in a row,
      // periodSeconds apart: the test allows it that long (at least a minute), then fails.
      if (startup)
        await until(
          `${name}'s startup probe`,
          async () => project.probe(name, startup) || undefined,
          Math.max(60, (startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3)) * 1000,
        );
      if (readiness)
        await until(
          `${name}'s readiness probe`,
          async () => project.probe(name, readiness) || undefined,
          120_000,
        );
    }
  };

  project.finished = async (play) => {
    const names = Object.values(play.containers);
    const logs = () => names.map((name) => run('podman', ['logs', name])).join('');
    // restartPolicy OnFailure runs a failed container again; with Never, one exit other than 0 is the end.
    const outcome = await until(
      `${play.name} to finish`,
      async () => {
        const states = run('podman', [
          'inspect',
          '--format',
          '{{.State.Status}} {{.State.ExitCode}}',
          ...names,
        ])
          .trim()
          .split('\n');
        if (states.every((state) => state === 'exited 0')) return 'done';
        if (
          play.template.spec.restartPolicy === 'Never' &&
          states.some((state) => /^exited [1-9]/.test(state))
        )
          return 'failed';
        return undefined;
      },
      600_000,
    );
    if (outcome === 'failed') throw new Error(`${play.name} failed:\n${logs().slice(-3000)}`);
    return logs();
  };
  let playOptions: Parameters<typeof toPodman>[1];
  project.playMore = (workload) => {
    const keep = project.rendered.filter((o) => ['ConfigMap', 'Secret'].includes(o.kind));
    const [play] = toPodman([...keep, workload], playOptions).plays;
    const file = join(dir, `${play!.name}.yaml`);
    writeFileSync(file, playYaml(play!));
    project.plays.push({ ...play!, file });
    project.replay(play!.name);
    return project.play(play!.name);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'blog-kube-'));
    chmodSync(dir, 0o755); // the probe tools are mounted from here into containers of other users
    env = podmanEnv();
    buildImages(run, project.timings);

    // Render: the base, then the overlay with the images built here and one replica each.
    const started = Date.now();
    const base = parseAll(run('kubectl', ['kustomize', K8S_DIR]));
    const kustomization = parse(readFileSync(join(K8S_DIR, 'kustomization.yaml'), 'utf8')) as Obj;
    const overlay = join(dir, 'overlay');
    mkdirSync(overlay);
    writeFileSync(
      join(overlay, 'kustomization.yaml'),
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [relative(overlay, K8S_DIR)],
        images: [
          ...(kustomization.images as Obj[]).map((image) => ({
            name: image.newName,
            newName: `localhost/${image.name}`,
            newTag: 'local',
          })),
          ...Object.values(STAND_INS as Record<string, string>).map((full) => ({
            name: full.replace(/^docker\.io\/(library\/)?/, '').replace(/:.*$/, ''),
            newName: full.replace(/:.*$/, ''),
          })),
        ],
        replicas: base
          .filter((object) => ['Deployment', 'StatefulSet'].includes(object.kind))
          .map((object) => ({ name: object.metadata.name, count: 1 })),
      }),
    );
    project.rendered = parseAll(run('kubectl', ['kustomize', overlay]));

    const webPort = await freePort();
    const mailPort = await freePort();
    project.site = `http://127.0.0.1:${webPort}`;
    project.mailUrl = `http://127.0.0.1:${mailPort}`;
    const tools = join(dir, 'probe-tools');
    mkdirSync(tools, { mode: 0o755 });
    writeFileSync(join(tools, 'curl'), CURL, { mode: 0o755 });
    writeFileSync(join(tools, 'nc'), NC, { mode: 0o755 });
    playOptions = { site: project.site, webPort, mailPort, tools };
    const { plays, configMap, secret, notPlayed } = toPodman(project.rendered, playOptions);
    project.notPlayed = notPlayed;
    project.plays = plays.map((play) => {
      const file = join(dir, `${play.name}.yaml`);
      writeFileSync(file, playYaml(play));
      if (play.init) {
        play.init.file = join(dir, `${play.init.name}.yaml`);
        writeFileSync(play.init.file, playYaml(play.init));
      }
      if (play.claims.length)
        writeFileSync(
          join(dir, `${play.name}-claims.yaml`),
          play.claims.map((claim) => stringify(claim, PODMAN_YAML)).join('---\n'),
        );
      return { ...play, file };
    });
    const stores = project.plays.filter((play) => isStore(play.template.spec));
    const rest = project.plays.filter((play) => !stores.includes(play));
    project.claims = plays.flatMap((play) => play.claims.map((claim) => claim.metadata.name as string));
    writeFileSync(configMapFile(), stringify(configMap, PODMAN_YAML));

    // What an earlier run killed before its clean-up left behind.
    cleanUp(run, project, network, false);
    run('podman', ['network', 'create', network]);
    // podman 4.3 reads `secret create NAME -` only from a FIFO, not from a socket: a file (0600).
    const secretFile = join(dir, 'blog-secrets.json');
    writeFileSync(
      secretFile,
      JSON.stringify(
        Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
      ),
      { mode: 0o600 },
    );
    run('podman', ['secret', 'create', 'blog-secrets', secretFile]);
    // The claims once, on their own: kube play 4.3 fails on a claim whose volume exists, where
    // Kubernetes leaves an existing claim as it is (DIFFERENCES.claims).
    for (const play of project.plays.filter((p) => p.claims.length))
      // (--network: without one, kube play makes its default network, which would stay behind)
      run('podman', ['kube', 'play', '--network', network, join(dir, `${play.name}-claims.yaml`)]);
    for (const play of stores) project.replay(play.name);
    for (const play of stores.filter((p) => p.kind === 'Deployment')) await project.ready(play);
    for (const play of stores.filter((p) => p.kind === 'Pod')) await project.finished(play);
    for (const play of rest) project.replay(play.name);
    for (const play of rest) await project.ready(play);
    project.timings.playToReadySeconds = Math.round((Date.now() - started) / 100) / 10;
    project.browser = await launchBrowser();
  }, 1_800_000);

  afterAll(async () => {
    await project.browser?.close();
    if (dir) {
      try {
        cleanUp(run, project, network, true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`kube timings (s): ${JSON.stringify(project.timings)}`);
  }, 300_000);

  return project;
}

function parseAll(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Obj)
    .filter(Boolean);
}

/**
 * Removes what the plays made: the pods (`podman kube down`, then any pod still labelled with the
 * project), the containers' anonymous volumes (emptyDir), the claims' volumes, the secret and the
 * network. Quiet about what is not there; with `strict`, throws after trying everything if anything failed.
 */
function cleanUp(run: Run, project: KubeProject, network: string, strict: boolean): void {
  const failures: string[] = [];
  const attempt = (what: string, work: () => void) => {
    try {
      work();
    } catch (error) {
      failures.push(`${what}: ${(error as Error).message}`);
    }
  };
  const pods = (project.plays ?? []).flatMap((play) => [play.pod, ...(play.init ? [play.init.pod] : [])]);
  const anonymous = new Set<string>();
  for (const pod of pods)
    attempt(`volumes of ${pod}`, () => {
      const ids = run('podman', ['ps', '-a', '--filter', `pod=${pod}`, '--format', '{{.ID}}']).trim();
      if (!ids) return;
      const lines = run('podman', ['inspect', '--format', '{{json .Mounts}}', ...ids.split('\n')]);
      for (const mount of lines
        .trim()
        .split('\n')
        .flatMap((line) => JSON.parse(line) as Obj[]))
        if (mount.Type === 'volume' && /^[0-9a-f]{64}$/.test(mount.Name)) anonymous.add(mount.Name);
    });
  for (const play of project.plays ?? [])
    attempt(`kube down ${play.name}`, () => {
      if (spawnSync('podman', ['pod', 'exists', play.pod], { env: podmanEnv() }).status === 0)
        run('podman', ['kube', 'down', play.file]);
    });
  attempt('labelled pods', () => {
    const left = run('podman', ['pod', 'ps', '-q', '--filter', `label=blog.test/project=${PROJECT}`]).trim();
    if (left) run('podman', ['pod', 'rm', '-f', ...left.split('\n')]);
  });
  // A claim's volume only when it carries the test's label (a volume of that name may be someone else's).
  const labelled = (volume: string) =>
    spawnSync('podman', ['volume', 'inspect', '--format', '{{index .Labels "blog.test/project"}}', volume], {
      env: podmanEnv(),
      encoding: 'utf8',
    }).stdout?.trim();
  for (const volume of [...anonymous, ...(project.claims ?? []).filter(labelled)])
    attempt(`volume ${volume}`, () => run('podman', ['volume', 'rm', '-f', volume]));
  attempt('secret', () => {
    if (
      spawnSync('podman', ['secret', 'inspect', 'blog-secrets'], { env: podmanEnv(), stdio: 'ignore' })
        .status === 0
    )
      run('podman', ['secret', 'rm', 'blog-secrets']);
  });
  attempt('network', () => {
    if (spawnSync('podman', ['network', 'exists', network], { env: podmanEnv() }).status === 0)
      run('podman', ['network', 'rm', '-f', network]);
  });
  if (strict && failures.length) throw new Error(`clean-up:\n${failures.join('\n')}`);
}
