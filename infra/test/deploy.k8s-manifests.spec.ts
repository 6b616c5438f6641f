/**
 * The Kubernetes manifests (infra/k8s), rendered here like `kubectl kustomize` and validated
 * against the schemas of `kubernetes-models`: the objects, each process's variables, Services,
 * the Ingress and probes. `kubectl`, when installed, cross-checks the rendering.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  allContainers,
  CONTAINER_FIELDS,
  FORBIDDEN_ENV,
  id,
  ifInstalled,
  K8S_DIR,
  loadManifests,
  MODELS,
  NGINX_CONF,
  NODE_PROCESSES,
  podSpecOf,
  PROBE_FIELDS,
  REQUIRED_ENV,
  ROOT,
  run,
  SERVICE_PORTS,
  SERVICES,
  type NodeProcess,
  type Obj,
} from './support/deploy.js';

describe('Kubernetes manifests (infra/k8s)', () => {
  const { objects, byKind, find, workloads, envNames, envValue, nodeContainer } = loadManifests();

  it('renders one namespace holding the whole stack', () => {
    expect(byKind('Namespace').map((ns) => ns.metadata.name)).toEqual(['blog']);
    for (const object of objects.filter((o) => o.kind !== 'Namespace')) {
      expect([id(object), object.metadata.namespace]).toEqual([id(object), 'blog']);
    }
    const deployments = byKind('Deployment').map((d) => d.metadata.name);
    expect(deployments).toEqual(expect.arrayContaining([...Object.keys(NODE_PROCESSES), 'web']));
    const stores = [...byKind('StatefulSet'), ...byKind('Deployment')].map((w) => w.metadata.name);
    expect(stores).toEqual(expect.arrayContaining(['postgres', 'redis', 'nats', 'minio']));
    expect(byKind('ConfigMap')).toHaveLength(1);
    expect(byKind('Ingress')).toHaveLength(1);
  });

  it('validates every object against the Kubernetes schemas', () => {
    const failures: string[] = [];
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      if (!Model) {
        failures.push(`${id(object)}: no schema for ${object.apiVersion} ${object.kind} (add it to MODELS)`);
        continue;
      }
      try {
        new Model(object).validate();
      } catch (error) {
        failures.push(`${id(object)}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('uses only known container and probe fields (the schemas allow unknown ones)', () => {
    const unknown: string[] = [];
    for (const workload of workloads) {
      for (const container of allContainers(podSpecOf(workload)!)) {
        for (const key of Object.keys(container)) {
          if (!CONTAINER_FIELDS.has(key)) unknown.push(`${id(workload)} ${container.name}.${key}`);
        }
        for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
          for (const key of Object.keys(container[probe] ?? {})) {
            if (!PROBE_FIELDS.has(key)) unknown.push(`${id(workload)} ${container.name}.${probe}.${key}`);
          }
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  const kubectl = ifInstalled('kubectl');
  kubectl('renders the same objects as `kubectl kustomize`', () => {
    const result = run('kubectl', ['kustomize', K8S_DIR]);
    expect(result.status).toBe(0);
    const theirs = parseAllDocuments(result.output)
      .map((doc) => doc.toJS() as Obj)
      .filter(Boolean);
    const sort = (list: Obj[]) => [...list].sort((a, b) => id(a).localeCompare(id(b)));
    expect(sort(theirs).map(id)).toEqual(sort(objects).map(id));
    expect(sort(theirs)).toEqual(sort(objects));
  });

  it('runs each Node process from the app image with the variables it needs', () => {
    for (const [name, entry] of Object.entries(NODE_PROCESSES) as [NodeProcess, string][]) {
      const container = nodeContainer(name);
      // args, so the image's entrypoint (tini) stays; the entry point exists in the source.
      expect([name, container.command]).toEqual([name, undefined]);
      expect([name, container.args]).toEqual([name, ['node', entry]]);
      expect(existsSync(join(ROOT, entry.replace('/dist/', '/src/').replace(/\.js$/, '.ts')))).toBe(true);
      expect(container.image).toMatch(/blog-app:/);
      const names = envNames(container);
      const missing = REQUIRED_ENV[name].filter((variable) => !names.includes(variable));
      expect([name, missing]).toEqual([name, []]);
      expect([name, names.filter((v) => FORBIDDEN_ENV[name].includes(v))]).toEqual([name, []]);
      expect([name, envValue(container, 'NODE_ENV')]).toEqual([name, 'production']);
      if (name !== 'gateway') expect([name, envValue(container, 'BIND_HOST')]).toEqual([name, '0.0.0.0']);
      // Service links would inject AUTH_PORT=tcp://... and the like over our variables.
      expect([name, podSpecOf(find('Deployment', name)!)!.enableServiceLinks]).toEqual([name, false]);
    }
    expect(nodeContainer('gateway').image).toBe(nodeContainer('auth').image);
    expect(find('Deployment', 'web')!.spec.template.spec.containers[0].image).toMatch(/blog-web:/);
  });

  it('points DATABASE_URL at the postgres Service with the password from the Secret', () => {
    const postgres = find('StatefulSet', 'postgres')!.spec.template.spec.containers[0];
    const dbUser = envValue(postgres, 'POSTGRES_USER');
    const dbName = envValue(postgres, 'POSTGRES_DB');
    for (const name of SERVICES) {
      const url = envValue(nodeContainer(name), 'DATABASE_URL')!;
      expect([name, url]).toEqual([
        name,
        `postgres://${dbUser}:$(POSTGRES_PASSWORD)@postgres:5432/${dbName}`,
      ]);
    }
    expect(find('Service', 'postgres')!.spec.ports[0].port).toBe(5432);
  });

  it('agrees on NATS, ports and Services between the config and the containers', () => {
    const gateway = nodeContainer('gateway');
    const nats = find('Service', 'nats')!;
    const natsPod = find('Deployment', 'nats')!.spec.template.spec.containers[0];
    for (const name of Object.keys(NODE_PROCESSES) as NodeProcess[]) {
      const container = nodeContainer(name);
      expect([name, envValue(container, 'TRANSPORT')]).toEqual([name, 'nats']);
      expect([name, envValue(container, 'NATS_URL')]).toEqual([
        name,
        `nats://nats:${nats.spec.ports[0].port}`,
      ]);
    }
    expect(natsPod.args).toEqual(expect.arrayContaining(['--port', String(nats.spec.ports[0].port)]));
    for (const name of SERVICES) {
      const container = nodeContainer(name);
      // NATS routes the calls: a Service in front of a service would only suggest otherwise.
      expect([name, find('Service', name)]).toEqual([name, undefined]);
      const port = Number(envValue(container, `${name.toUpperCase()}_PORT`));
      expect([name, port]).toEqual([name, SERVICE_PORTS[name]]);
      expect([name, container.ports]).toEqual([name, [{ name: 'health', containerPort: port }]]);
    }
    const gatewayPort = Number(envValue(gateway, 'PORT'));
    expect(gateway.ports.find((p: Obj) => p.name === 'http').containerPort).toBe(gatewayPort);
    expect(find('Service', 'gateway')!.spec.ports[0].port).toBe(gatewayPort);
    // nginx reaches the gateway by the name and port in its upstream.
    expect(readFileSync(NGINX_CONF, 'utf8')).toContain(`server gateway:${gatewayPort};`);
    const nginxPort = Number(/^\s*listen\s+(\d+);/m.exec(readFileSync(NGINX_CONF, 'utf8'))![1]);
    expect(find('Deployment', 'web')!.spec.template.spec.containers[0].ports[0].containerPort).toBe(
      nginxPort,
    );
  });

  it('has every Service select the pods of one workload, on ports those pods declare', () => {
    for (const service of byKind('Service')) {
      const selector = service.spec.selector as Record<string, string>;
      expect([service.metadata.name, selector && Object.keys(selector).length > 0]).toEqual([
        service.metadata.name,
        true,
      ]);
      const matches = workloads.filter((workload) => {
        const labels = workload.spec.template.metadata?.labels ?? {};
        return Object.entries(selector).every(([key, value]) => labels[key] === value);
      });
      expect([service.metadata.name, matches.length]).toEqual([service.metadata.name, 1]);
      const ports = matches[0].spec.template.spec.containers.flatMap((c: Obj) => c.ports ?? []);
      for (const port of service.spec.ports) {
        const target = port.targetPort ?? port.port;
        const declared = ports.some((p: Obj) => p.name === target || p.containerPort === target);
        expect([service.metadata.name, target, declared]).toEqual([service.metadata.name, target, true]);
      }
    }
    for (const workload of [...byKind('Deployment'), ...byKind('StatefulSet')]) {
      const labels = workload.spec.template.metadata.labels;
      for (const [key, value] of Object.entries(workload.spec.selector.matchLabels)) {
        expect([id(workload), key, labels[key]]).toEqual([id(workload), key, value]);
      }
    }
    for (const statefulSet of byKind('StatefulSet')) {
      expect(find('Service', statefulSet.spec.serviceName)).toBeDefined();
    }
  });

  it('routes / through the Ingress to web, with upload-sized limits', () => {
    const [ingress] = byKind('Ingress');
    const paths = ingress.spec.rules.flatMap((rule: Obj) => rule.http.paths);
    const root = paths.find((p: Obj) => p.path === '/');
    expect(root.pathType).toBe('Prefix');
    expect(root.backend.service.name).toBe('web');
    const web = find('Service', 'web')!;
    const port = root.backend.service.port;
    expect(web.spec.ports.some((p: Obj) => p.name === port.name || p.port === port.number)).toBe(true);
    // ingress-nginx defaults to a 1m body limit: uploads need the same ceiling as nginx.conf.
    const bodySize = /client_max_body_size\s+(\w+);/.exec(readFileSync(NGINX_CONF, 'utf8'))![1];
    expect(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-body-size']).toBe(bodySize);
  });

  it('probes every long-running container: /api/health for the gateway, /health for the services', () => {
    for (const workload of [...byKind('Deployment'), ...byKind('StatefulSet')]) {
      for (const container of workload.spec.template.spec.containers) {
        expect([id(workload), !!container.readinessProbe, !!container.livenessProbe]).toEqual([
          id(workload),
          true,
          true,
        ]);
        const portNames = (container.ports ?? []).map((p: Obj) => p.name);
        for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
          const port = probe?.httpGet?.port ?? probe?.tcpSocket?.port;
          if (typeof port === 'string')
            expect([id(workload), portNames]).toEqual([id(workload), expect.arrayContaining([port])]);
        }
      }
    }
    const gateway = nodeContainer('gateway');
    expect(gateway.readinessProbe.httpGet).toEqual({ path: '/api/health', port: 'http' });
    // A service being down makes /api/health 503: that must not restart the gateway.
    expect(gateway.livenessProbe.httpGet).toBeUndefined();
    for (const name of SERVICES) {
      const container = nodeContainer(name);
      // A service's /health is 200 while it is connected to NATS (its way of taking requests).
      for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
        expect([name, probe, container[probe]?.httpGet]).toEqual([
          name,
          probe,
          { path: '/health', port: 'health' },
        ]);
      }
    }
  });
});
