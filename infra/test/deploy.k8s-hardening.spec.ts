/**
 * The Kubernetes manifests (infra/k8s) as run in production: secrets only from the Secret,
 * non-root pods within the memory budget, scaling out, and data on volumes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  allContainers,
  id,
  loadManifests,
  NODE_PROCESSES,
  podSpecOf,
  quantity,
  REPLICATED,
  ROOT,
  SECRET_NAME,
  type NodeProcess,
  type Obj,
} from './support/deploy.js';

describe('Kubernetes manifests (infra/k8s)', () => {
  const { byKind, find, workloads, configMaps, secrets } = loadManifests();

  it('takes secrets only from the Secret, and the example Secret holds none', () => {
    const problems: string[] = [];
    for (const workload of workloads) {
      for (const container of allContainers(podSpecOf(workload)!)) {
        const defined = new Set<string>();
        for (const entry of container.env ?? []) {
          const where = `${id(workload)} ${container.name} ${entry.name}`;
          const ref = entry.valueFrom?.secretKeyRef;
          if (SECRET_NAME.test(entry.name) && !ref) problems.push(`${where}: not from a secretKeyRef`);
          if (ref) {
            const secret = secrets.get(ref.name);
            if (!secret) problems.push(`${where}: Secret ${ref.name} is not in the kustomization`);
            else if (!(ref.key in (secret.stringData ?? {})) && !ref.optional) {
              problems.push(`${where}: Secret ${ref.name} has no key ${ref.key}`);
            }
          }
          const cmRef = entry.valueFrom?.configMapKeyRef;
          if (cmRef && configMaps.get(cmRef.name)?.data?.[cmRef.key] === undefined) {
            problems.push(`${where}: ConfigMap ${cmRef.name} has no key ${cmRef.key}`);
          }
          if (typeof entry.value === 'string') {
            // A URL with credentials may only take them from a variable defined before it.
            const password = /:\/\/[^/:@]+:([^@]+)@/.exec(entry.value)?.[1];
            if (password !== undefined) {
              const variable = /^\$\(([A-Z0-9_]+)\)$/.exec(password)?.[1];
              if (!variable) problems.push(`${where}: literal credentials in a URL`);
              else if (!defined.has(variable))
                problems.push(`${where}: $(${variable}) is not defined before it`);
            }
          }
          defined.add(entry.name);
        }
      }
    }
    for (const configMap of byKind('ConfigMap')) {
      for (const key of Object.keys(configMap.data ?? {})) {
        if (SECRET_NAME.test(key)) problems.push(`ConfigMap ${configMap.metadata.name}: ${key} is a secret`);
      }
    }
    expect(problems).toEqual([]);

    // The committed Secret is an example: no value in it could be used as a real secret.
    const [example] = byKind('Secret');
    expect(example.data).toBeUndefined();
    for (const [key, value] of Object.entries(example.stringData as Record<string, string>)) {
      if (key === 'SMTP_URL') expect(value).not.toMatch(/:\/\/[^@/]+@/);
      else expect([key, value]).toEqual([key, '']);
    }
  });

  it('runs every pod as non-root on a read-only root filesystem, within about 1.5 GiB at the default replicas', () => {
    const problems: string[] = [];
    let requestedMemory = 0;
    for (const workload of workloads) {
      const pod = podSpecOf(workload)!;
      const where = id(workload);
      if (pod.securityContext?.runAsNonRoot !== true) problems.push(`${where}: runAsNonRoot`);
      if (!(pod.securityContext?.runAsUser > 0)) problems.push(`${where}: runAsUser must be a non-zero uid`);
      if (pod.securityContext?.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${where}: seccomp`);
      if (pod.automountServiceAccountToken !== false) problems.push(`${where}: automountServiceAccountToken`);
      if (pod.enableServiceLinks !== false) problems.push(`${where}: enableServiceLinks`);
      for (const volume of pod.volumes ?? []) {
        if (volume.hostPath) problems.push(`${where}: hostPath volume ${volume.name}`);
      }
      // A pod reserves the larger of its containers' sum and its largest init container (which
      // run one at a time, before the others).
      const requests = (containers: Obj[] = []) =>
        containers.map((c) => quantity(c.resources?.requests?.memory ?? 0));
      if (workload.kind !== 'Job')
        requestedMemory +=
          Math.max(
            requests(pod.containers).reduce((a, b) => a + b, 0),
            ...requests(pod.initContainers),
          ) * (workload.spec.replicas ?? 1);
      for (const container of allContainers(pod)) {
        const at = `${where} ${container.name}`;
        const security = container.securityContext ?? {};
        if (security.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation`);
        if (security.readOnlyRootFilesystem !== true) problems.push(`${at}: readOnlyRootFilesystem`);
        if (!security.capabilities?.drop?.includes('ALL')) problems.push(`${at}: capabilities.drop ALL`);
        if (security.privileged || security.runAsUser === 0)
          problems.push(`${at}: runs privileged or as root`);
        for (const resource of ['cpu', 'memory']) {
          const requested = container.resources?.requests?.[resource];
          const limit = container.resources?.limits?.[resource];
          if (requested === undefined || limit === undefined)
            problems.push(`${at}: ${resource} request and limit`);
          else if (quantity(requested) > quantity(limit))
            problems.push(`${at}: ${resource} request above limit`);
        }
        // Our images (Node temp files, nginx pid and buffers) need a writable /tmp on a read-only root.
        const mounts = (container.volumeMounts ?? []).map((m: Obj) => m.mountPath);
        if (/blog-(app|web):/.test(container.image) && !mounts.includes('/tmp'))
          problems.push(`${at}: no /tmp`);
      }
    }
    expect(problems).toEqual([]);
    expect(requestedMemory).toBeLessThanOrEqual(1.5 * 1024 ** 3);
    // The namespace enforces this for every pod created in it.
    expect(byKind('Namespace')[0].metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  it('scales out: two replicas by default, autoscalers, disruption budgets and spread over nodes', () => {
    const matches = (selector: Obj, name: string) =>
      JSON.stringify(selector) === JSON.stringify({ matchLabels: { 'app.kubernetes.io/name': name } });
    for (const name of Object.keys(NODE_PROCESSES) as NodeProcess[]) {
      const deployment = find('Deployment', name)!;
      const expected = (REPLICATED as readonly string[]).includes(name) ? 2 : 1;
      expect([name, deployment.spec.replicas]).toEqual([name, expected]);
      const spread = deployment.spec.template.spec.topologySpreadConstraints as Obj[];
      expect([name, spread?.length]).toEqual([name, 1]);
      expect([name, spread[0].topologyKey, matches(spread[0].labelSelector, name)]).toEqual([
        name,
        'kubernetes.io/hostname',
        true,
      ]);
      // A budget that lets a drain go on (never "all replicas must stay").
      const budgets = byKind('PodDisruptionBudget').filter((b) => matches(b.spec.selector, name));
      expect([name, budgets.length]).toEqual([name, 1]);
      const budget = budgets[0].spec;
      if (budget.minAvailable !== undefined)
        expect([name, budget.minAvailable]).toEqual([name, expected - 1]);
      else expect([name, budget.maxUnavailable]).toEqual([name, 1]);
    }
    const autoscaled = byKind('HorizontalPodAutoscaler');
    expect(autoscaled.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['gateway', 'media']);
    for (const hpa of autoscaled) {
      const target = find(hpa.spec.scaleTargetRef.kind, hpa.spec.scaleTargetRef.name)!;
      expect([hpa.metadata.name, hpa.spec.minReplicas]).toEqual([hpa.metadata.name, target.spec.replicas]);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
      // CPU utilisation needs a CPU request to be measured against.
      expect(target.spec.template.spec.containers[0].resources.requests.cpu).toBeDefined();
    }
    // Media scales on the BullMQ queue all its replicas share.
    const media = autoscaled.find((h) => h.metadata.name === 'media')!;
    const queue = media.spec.metrics.find((m: Obj) => m.type === 'External');
    expect(queue.external.metric.selector.matchLabels).toEqual({ queue: 'media-items' });
    expect(readFileSync(join(ROOT, 'services/media/src/index.ts'), 'utf8')).toContain(
      "MEDIA_QUEUE = 'media-items'",
    );
  });

  it('keeps data on PersistentVolumeClaims for postgres and minio', () => {
    for (const name of ['postgres', 'minio']) {
      const statefulSet = find('StatefulSet', name)!;
      const claims = statefulSet.spec.volumeClaimTemplates.map((claim: Obj) => claim.metadata.name);
      const mounts = statefulSet.spec.template.spec.containers[0].volumeMounts.map((m: Obj) => m.name);
      expect([name, claims.every((claim: string) => mounts.includes(claim)), claims.length]).toEqual([
        name,
        true,
        1,
      ]);
    }
  });
});
