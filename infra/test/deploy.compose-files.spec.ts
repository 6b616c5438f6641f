/**
 * docker-compose.yml and the scale override docker-compose.scale.yml: the stack, each
 * process's variables, memory limits (shared with Kubernetes) and secrets. `docker-compose`
 * (Debian's 1.29, installed by .ci/run) validates the file when present.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  allContainers,
  COMPOSE_FILE,
  COMPOSE_SCALE_FILE,
  FORBIDDEN_ENV,
  ifInstalled,
  K8S_DIR,
  NGINX_CONF,
  NODE_PROCESSES,
  renderKustomization,
  REPLICATED,
  REQUIRED_ENV,
  ROOT,
  run,
  SECRET_NAME,
  SERVICE_PORTS,
  type NodeProcess,
  type Obj,
} from './support/deploy.js';

describe('docker-compose.yml', () => {
  const text = readFileSync(COMPOSE_FILE, 'utf8');
  const compose = parse(text, { merge: true }) as Obj;
  const services = compose.services as Record<string, Obj>;
  const envOf = (name: string): Record<string, string | null> => {
    const environment = services[name].environment ?? {};
    if (Array.isArray(environment)) {
      return Object.fromEntries(
        environment.map((line: string) => [line.split('=')[0], line.split('=')[1] ?? null]),
      );
    }
    return environment;
  };
  const dependsOn = (name: string): string[] => {
    const deps = services[name].depends_on ?? [];
    return Array.isArray(deps) ? deps : Object.keys(deps);
  };
  const dependencyClosure = (name: string, seen = new Set<string>()): Set<string> => {
    for (const dep of dependsOn(name)) {
      if (!seen.has(dep)) {
        seen.add(dep);
        dependencyClosure(dep, seen);
      }
    }
    return seen;
  };
  const secretEnv = {
    JWT_SECRET: 'compose-check-0123456789abcdef0123456789',
    POSTGRES_PASSWORD: 'compose-check',
    S3_ACCESS_KEY_ID: 'compose-check',
    S3_SECRET_ACCESS_KEY: 'compose-check-secret',
  };

  it('keeps to what docker-compose 1.29 accepts', () => {
    expect(compose.version).toMatch(/^3\.\d+$/);
    expect(compose.name).toBeUndefined();
    expect(text).not.toMatch(/^\s*develop:/m);
    expect(text).not.toMatch(/start_interval/);
  });

  it('runs the whole stack: postgres, redis, minio, a mail sink, the six Node processes and web', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'minio', ...Object.keys(NODE_PROCESSES), 'web']),
    );
    const sinks = Object.values(services).filter((service) => /mailpit|mailhog/.test(service.image ?? ''));
    expect(sinks).toHaveLength(1);
    expect(services.web.build).toMatchObject({ dockerfile: 'infra/Dockerfile', target: 'web' });
    // Only the site is published to the world; the gateway is reached through nginx.
    expect(services.gateway.ports).toBeUndefined();
    const nginxPort = /^\s*listen\s+(\d+);/m.exec(readFileSync(NGINX_CONF, 'utf8'))![1];
    expect(services.web.ports).toEqual([expect.stringMatching(new RegExp(`:${nginxPort}$`))]);
  });

  it('gives each Node process its command, its variables and postgres to depend on', () => {
    const images = new Set<string>();
    for (const [name, entry] of Object.entries(NODE_PROCESSES) as [NodeProcess, string][]) {
      const service = services[name];
      expect([name, service.command]).toEqual([name, ['node', entry]]);
      expect([name, service.build]).toEqual([
        name,
        expect.objectContaining({ dockerfile: 'infra/Dockerfile', target: 'app' }),
      ]);
      images.add(service.image);
      const environment = envOf(name);
      const missing = REQUIRED_ENV[name].filter((variable) => !(variable in environment));
      expect([name, missing]).toEqual([name, []]);
      expect([name, Object.keys(environment).filter((v) => FORBIDDEN_ENV[name].includes(v))]).toEqual([
        name,
        [],
      ]);
      expect([name, dependencyClosure(name).has('postgres')]).toEqual([name, true]);
      if ('DATABASE_URL' in environment) {
        expect([name, dependsOn(name)]).toEqual([name, expect.arrayContaining(['postgres'])]);
        expect([name, services[name].depends_on.postgres?.condition]).toEqual([name, 'service_healthy']);
        expect(environment.DATABASE_URL).toMatch(
          /^postgres:\/\/\w+:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/\w+$/,
        );
      }
      if (name !== 'gateway') {
        expect([name, environment.BIND_HOST]).toEqual([name, '0.0.0.0']);
        expect([name, environment[`${name.toUpperCase()}_PORT`]]).toEqual([
          name,
          String(SERVICE_PORTS[name as 'auth']),
        ]);
      }
      expect([name, services[name].healthcheck?.test]).toEqual([name, expect.any(Array)]);
    }
    expect(images.size).toBe(1);
    expect(services.gateway.healthcheck.test.join(' ')).toContain('/api/health');
  });

  it('connects the six processes over TCP: one container each, every address known, no NATS', () => {
    expect(services.nats).toBeUndefined();
    expect(text).not.toMatch(/NATS_URL|nats:\/\//);
    for (const name of Object.keys(NODE_PROCESSES) as NodeProcess[]) {
      const environment = envOf(name);
      expect([name, environment.TRANSPORT]).toEqual([name, 'tcp']);
      // Whoever calls whom, each address is the service's compose name and port.
      for (const [service, port] of Object.entries(SERVICE_PORTS)) {
        const prefix = service.toUpperCase();
        expect([name, environment[`${prefix}_HOST`], environment[`${prefix}_PORT`]]).toEqual([
          name,
          service,
          String(port),
        ]);
      }
      expect([name, services[name].deploy?.replicas]).toEqual([name, undefined]);
      if (name !== 'gateway') {
        // The service's TCP port takes connections once it listens.
        const probe = services[name].healthcheck.test.join(' ');
        expect([name, probe]).toEqual([
          name,
          expect.stringContaining(`connect(${SERVICE_PORTS[name as 'auth']}, '127.0.0.1')`),
        ]);
      }
    }
  });

  it('gives every container a memory limit with headroom over the measured peak working set beside it, the peaks within 1 GB', () => {
    const problems: string[] = [];
    let peaks = 0;
    for (const [name, service] of Object.entries(services)) {
      const limit = /^(\d+)m$/.exec(service.mem_limit ?? '')?.[1];
      if (!limit) problems.push(`${name}: mem_limit in MiB (e.g. 128m)`);
    }
    // Each limit says what it was set from: `mem_limit: 128m # measured 61 MiB peak`.
    for (const line of text.split('\n').filter((l) => /^\s+mem_limit:/.test(l))) {
      const [, limit, measured] = /mem_limit: (\d+)m # measured (\d+) MiB/.exec(line) ?? [];
      if (!measured) problems.push(`no measured figure: ${line.trim()}`);
      else if (Number(limit) < Number(measured) * 1.25) problems.push(`under 25 % headroom: ${line.trim()}`);
      else if (!/exits once/.test(line)) peaks += Number(measured);
    }
    expect(problems).toEqual([]);
    // Peaks are not all reached at once; even so, their sum fits a 1 GB server. The peaks are
    // working sets (usage less inactive page cache), the figure the compose test holds under
    // 900 MB in total.
    expect(peaks * 1024 ** 2).toBeLessThanOrEqual(1000 * 1000 ** 2);
  });

  it('sizes Kubernetes from the same figures: each container limited as in compose, its request at most that', () => {
    const scaleServices = (parse(readFileSync(COMPOSE_SCALE_FILE, 'utf8'), { merge: true }) as Obj).services;
    const composeLimit = (name: string): string | undefined =>
      services[name]?.mem_limit ?? scaleServices[name]?.mem_limit;
    const checked: string[] = [];
    const problems: string[] = [];
    for (const object of renderKustomization(K8S_DIR)) {
      const pod = object.spec?.template?.spec;
      if (!pod) continue;
      for (const container of allContainers(pod)) {
        const limit = composeLimit(container.name);
        if (!limit) continue;
        checked.push(container.name);
        const k8s = container.resources?.limits?.memory;
        if (k8s !== limit.replace(/m$/, 'Mi'))
          problems.push(`${container.name}: Kubernetes ${k8s}, compose ${limit}`);
      }
    }
    expect(problems).toEqual([]);
    expect(new Set(checked)).toEqual(
      new Set(['postgres', 'redis', 'nats', 'minio', 'mailpit', ...Object.keys(NODE_PROCESSES), 'web']),
    );
  });

  describe('the scale override (docker-compose.scale.yml)', () => {
    const scaleText = readFileSync(COMPOSE_SCALE_FILE, 'utf8');
    const scale = parse(scaleText, { merge: true }) as Obj;
    const overrides = scale.services as Record<string, Obj>;

    it('adds a health-checked NATS and moves the six processes onto it, two replicas of the replicated ones', () => {
      expect(scale.version).toBe(compose.version);
      const nats = overrides.nats;
      expect(nats.image).toMatch(/^nats:/);
      expect(nats.healthcheck.test.join(' ')).toContain('/healthz');
      expect(nats.mem_limit).toMatch(/^\d+m$/);
      expect(scaleText).toMatch(/mem_limit: \d+m # measured \d+ MiB/);
      const port = nats.command[nats.command.indexOf('--port') + 1];
      for (const name of Object.keys(NODE_PROCESSES) as NodeProcess[]) {
        const override = overrides[name];
        expect([name, override.environment.TRANSPORT, override.environment.NATS_URL]).toEqual([
          name,
          'nats',
          `nats://nats:${port}`,
        ]);
        expect([name, override.depends_on.nats?.condition]).toEqual([name, 'service_healthy']);
        const replicas = (REPLICATED as readonly string[]).includes(name) ? 2 : undefined;
        expect([name, override.deploy?.replicas]).toEqual([name, replicas]);
        if (name !== 'gateway') {
          // Under NATS the service's port answers its probe: 200 while connected.
          expect([name, override.healthcheck.test.join(' ')]).toEqual([
            name,
            expect.stringContaining(`127.0.0.1:${SERVICE_PORTS[name as 'auth']}/health`),
          ]);
        }
      }
      // Only what changes: the rest (images, secrets, volumes, limits) comes from docker-compose.yml.
      for (const [name, override] of Object.entries(overrides)) {
        if (name === 'nats') continue;
        expect([name, Object.keys(override).sort()]).toEqual([
          name,
          expect.arrayContaining(['depends_on', 'environment']),
        ]);
        expect([name, services[name]]).toEqual([name, expect.anything()]);
      }
    });

    const dockerComposeScale = ifInstalled('docker-compose');
    dockerComposeScale('merges over docker-compose.yml (`docker-compose config`)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'blog-compose-scale-'));
      try {
        const emptyEnvFile = join(dir, 'empty.env');
        writeFileSync(emptyEnvFile, '');
        const base = Object.fromEntries(
          Object.entries(process.env).filter(([key]) => !(key in secretEnv) && !key.startsWith('COMPOSE_')),
        );
        const args = ['--env-file', emptyEnvFile, '-f', COMPOSE_FILE, '-f', COMPOSE_SCALE_FILE];
        const merged = spawnSync('docker-compose', [...args, '--compatibility', 'config'], {
          cwd: ROOT,
          env: { ...base, ...secretEnv },
          encoding: 'utf8',
          timeout: 15000,
        });
        expect([merged.status, merged.stderr]).toEqual([0, expect.any(String)]);
        const result = parse(merged.stdout) as Obj;
        const auth = result.services.auth;
        // The override's variables join the base file's (secrets and limits stay).
        expect(auth.environment).toMatchObject({ TRANSPORT: 'nats', JWT_SECRET: secretEnv.JWT_SECRET });
        expect(Object.keys(auth.depends_on).sort()).toEqual(['migrate', 'nats', 'postgres']);
        expect(auth.mem_limit).toBeDefined();
        expect(auth.deploy.replicas).toBe(2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('gives no secret a default value', () => {
    const problems: string[] = [];
    // Anywhere in the file: ${SECRET:-default} or ${SECRET-default}.
    for (const match of text.matchAll(/\$\{(\w+)(:?-)[^}]*\}/g)) {
      if (SECRET_NAME.test(match[1]) && match[1] !== 'SMTP_URL') problems.push(`default for ${match[1]}`);
    }
    for (const name of Object.keys(services)) {
      for (const [variable, value] of Object.entries(envOf(name))) {
        if (!SECRET_NAME.test(variable)) continue;
        if (variable === 'SMTP_URL' && value && !/:\/\/[^@/]+@/.test(value)) continue; // the credential-less sink
        const ok = value === null || new RegExp(`^\\$\\{\\w+:\\?[^}]+\\}$`).test(value);
        if (!ok) problems.push(`${name}: ${variable}=${value}`);
      }
    }
    expect(problems).toEqual([]);
  });

  const dockerCompose = ifInstalled('docker-compose');
  dockerCompose('passes `docker-compose config -q`, and fails naming a missing secret', () => {
    const dir = mkdtempSync(join(tmpdir(), 'blog-compose-'));
    try {
      const emptyEnvFile = join(dir, 'empty.env'); // ignore a real .env of the owner
      writeFileSync(emptyEnvFile, '');
      const args = ['--env-file', emptyEnvFile, '-f', COMPOSE_FILE, 'config', '-q'];
      const base = Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !(key in secretEnv) && !key.startsWith('COMPOSE_')),
      );
      const valid = run('docker-compose', args, { ...base, ...secretEnv });
      expect(valid.status).toBe(0);
      expect(valid.output).not.toMatch(/variable is not set/);
      const { JWT_SECRET: _omitted, ...withoutJwt } = secretEnv;
      const invalid = run('docker-compose', args, { ...base, ...withoutJwt });
      expect(invalid.status).not.toBe(0);
      expect(invalid.output).toContain('JWT_SECRET');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
