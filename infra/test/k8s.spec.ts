/**
 * Kubernetes, for real as far as this machine goes: the manifests `kubectl kustomize infra/k8s`
 * renders, played by Debian's podman 4.3 (`podman kube play`) with the images the compose test
 * builds. Where kube play is not a cluster the test changes the rendered objects and says so
 * (DIFFERENCES in support/kube-project.ts, printed by the first test): Services become DNS aliases
 * on the pods' network, StatefulSets Deployments with their claims, the Job a Pod, the Secret a
 * podman secret; Ingress, NetworkPolicy, HorizontalPodAutoscaler and PodDisruptionBudget are not
 * played (their schema checks are in deploy.k8s-*.spec.ts). Then the compose test's journey runs
 * through web (nginx): a browser signs in and writes a post with a photo and a video, a visitor
 * reads it, a reader gets the digest from the mail sink, the owner backs the blog up into a
 * bucket, and the backup is restored as the operator guide says; the claims keep the data when
 * the database's pod goes. Run alone:
 * `node --experimental-vm-modules node_modules/jest/bin/jest.js infra/test/k8s.spec.ts`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { parseAllDocuments } from 'yaml';
import { writePostInAdminForm } from '../../e2e/support/production-path.js';
import { MIGRATIONS as POSTS_MIGRATIONS } from '../../services/posts/src/migrations/index.js';
import { quantity, ROOT, type Obj } from './support/deploy.js';
import { subscribeAndGetDigest, UNDO_LAST_POSTS_MIGRATION } from './support/podman.js';
import {
  ADMIN,
  BACKUP_TARGET,
  DIFFERENCES,
  healthCheckOf,
  kubeSuite,
  kubeSuiteName,
  SECRET_VALUES,
  useKubeProject,
  type Json,
} from './support/kube-project.js';

const NOT_PLAYED = 'Ingress, NetworkPolicy, HorizontalPodAutoscaler and PodDisruptionBudget are not played';

kubeSuite(`${kubeSuiteName}: one replica each, Services as network aliases; ${NOT_PLAYED}`, () => {
  const project = useKubeProject();
  const { run, api, until, mail, play, container, timings } = project;
  const inspect = (name: string): Json => JSON.parse(run('podman', ['inspect', name]))[0];
  /** A script run by a second Node process in the media pod (its 320 MiB has room; posts' 160 MiB has not). */
  const nodeInMedia = (script: string) =>
    run('podman', ['exec', container('media'), 'node', '--input-type=module', '-e', script]);
  const containers = () =>
    project.plays.flatMap((p) =>
      (p.template.spec.containers as Obj[]).map((spec) => ({
        play: p,
        spec,
        name: p.containers[spec.name]!,
      })),
    );
  let token: string;
  let postId: number;
  /** A visitor's browser reads the post through web: its title, its text and its photo's bytes. */
  const visitorReads = async (url: string) => {
    const visit = await project.browser.newContext({ baseURL: project.site });
    try {
      const reading = await visit.newPage();
      // Pods just played again may take a moment to settle (the gateway's caches of the others):
      // the page is read again until it shows the post, for two minutes at most.
      const heading = reading.getByRole('heading', { level: 1, name: 'Through Kubernetes' });
      await until(
        `the page ${url}`,
        async () => {
          await reading.goto(url);
          await heading.waitFor({ timeout: 10_000 });
          return true;
        },
        120_000,
      ).catch(async (error: Error) => {
        throw new Error(
          `${error.message}; it shows: ${(await reading.locator('body').innerText()).slice(0, 500)}`,
        );
      });
      await reading.waitForFunction(() => {
        const img = document.querySelector<HTMLImageElement>('.carousel-slide img');
        return img !== null && img.complete && img.naturalWidth > 0;
      });
      expect(await reading.locator('.post-content strong').textContent()).toBe('podman kube play');
    } finally {
      await visit.close();
    }
  };

  test(`every workload of the rendered manifests runs as a pod; ${NOT_PLAYED} (podman has no counterpart)`, () => {
    console.log(
      `podman kube play is not a cluster; what the test does about it:\n${Object.entries(DIFFERENCES)
        .map(([what, how]) => `- ${what}: ${how}`)
        .join('\n')}\nnot played: ${project.notPlayed.join(', ')}`,
    );
    const workloads = project.rendered
      .filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))
      .map((o) => o.metadata.name as string);
    expect(project.plays.map((p) => p.name).sort()).toEqual([...workloads].sort());
    expect(project.notPlayed.map((n) => n.split('/')[0]).sort()).toEqual(
      [
        ...new Set(
          project.rendered
            .map((o) => o.kind as string)
            .filter((kind) =>
              [
                'Namespace',
                'Ingress',
                'NetworkPolicy',
                'HorizontalPodAutoscaler',
                'PodDisruptionBudget',
              ].includes(kind),
            ),
        ),
      ]
        .flatMap((kind) => project.rendered.filter((o) => o.kind === kind).map(() => kind))
        .sort(),
    );
    const running = run('podman', ['pod', 'ps', '--format', '{{.Name}} {{.Status}}']);
    for (const p of project.plays.filter((p) => p.kind === 'Deployment'))
      expect(running).toMatch(new RegExp(`^${p.pod} Running$`, 'm'));
    // The Job's pod ran to its end: the bucket is there.
    expect(
      run('podman', ['inspect', '--format', '{{.State.ExitCode}}', container('minio-create-bucket')]).trim(),
    ).toBe('0');
    // Every Service name resolves inside the pods, to the pod its selector picks.
    const services = project.rendered
      .filter((o) => o.kind === 'Service')
      .map((o) => o.metadata.name as string);
    const hosts = run('podman', ['exec', container('gateway'), 'getent', 'hosts', ...services]);
    expect(
      hosts
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[1]!.split('.')[0]),
    ).toEqual(services);
  });

  test('the ConfigMap and the Secret reach the containers (envFrom, configMapKeyRef, secretKeyRef from a podman secret); $(VAR) expanded', () => {
    const env = (name: string) =>
      Object.fromEntries(
        (inspect(name).Config.Env as string[]).map((entry) => [
          entry.split('=')[0],
          entry.slice(entry.indexOf('=') + 1),
        ]),
      );
    const gateway = env(container('gateway'));
    expect(gateway).toMatchObject({
      TRANSPORT: 'nats',
      NATS_URL: 'nats://nats:4222',
      SITE_URL: project.site,
      JWT_SECRET: SECRET_VALUES.JWT_SECRET,
      S3_SECRET_ACCESS_KEY: SECRET_VALUES.S3_SECRET_ACCESS_KEY,
    });
    expect(env(container('auth'))).toMatchObject({
      DATABASE_URL: `postgres://blog:${SECRET_VALUES.POSTGRES_PASSWORD}@postgres:5432/blog`,
      TOTP_ENCRYPTION_KEY: SECRET_VALUES.TOTP_ENCRYPTION_KEY,
      ADMIN_USERNAME: ADMIN.username,
    });
    expect(env(container('posts'))).toMatchObject({
      BACKUP_PASSPHRASE: SECRET_VALUES.BACKUP_PASSPHRASE,
      BACKUP_TARGET,
    });
    expect(env(container('mail')).SMTP_URL).toBe('smtp://mailpit:1025');
    expect(env(container('minio-create-bucket'))).toMatchObject({
      S3_BUCKET: 'blog-media',
      S3_ENDPOINT: 'http://minio:9000',
    });
  });

  test('resources and security contexts: memory limits and requests, CPU limits, users, read-only roots (CPU requests are not applied by podman)', () => {
    for (const { spec, name, play: p } of containers()) {
      const {
        HostConfig: host,
        Config: config,
        EffectiveCaps: effective,
        BoundingCaps: bounding,
      } = inspect(name);
      const { limits, requests } = spec.resources as Obj;
      const cores = quantity(limits.cpu);
      expect([name, host.Memory, host.MemoryReservation, host.CpuQuota / host.CpuPeriod]).toEqual([
        name,
        quantity(limits.memory),
        quantity(requests.memory),
        cores,
      ]);
      const pod = p.template.spec.securityContext as Obj;
      expect([name, config.User, host.ReadonlyRootfs, effective ?? [], bounding ?? []]).toEqual([
        name,
        `${pod.runAsUser}:${pod.runAsGroup}`,
        true,
        [],
        [],
      ]);
    }
  });

  test("probes: each livenessProbe is the container's podman health check, and passes; the startup and readiness probes (dropped by podman 4.3) passed when run by the test", async () => {
    for (const { spec, name } of containers().filter((c) => c.spec.livenessProbe)) {
      const { Config: config } = inspect(name);
      expect([name, config.Healthcheck]).toEqual([name, healthCheckOf(spec.livenessProbe)]);
      expect([name, config.HealthcheckOnFailureAction]).toEqual([name, 'restart']);
      // podman's health check runs `curl`/`nc`/the exec command inside the container; a run
      // can exceed a 1-second timeout on a busy machine, so three tries.
      await until(
        `${name}'s health check`,
        async () => (run('podman', ['healthcheck', 'run', name], { timeoutMs: 60_000 }), true),
        60_000,
      );
      expect([name, inspect(name).State.Health?.Status ?? inspect(name).State.Healthcheck?.Status]).toEqual([
        name,
        'healthy',
      ]);
    }
    for (const { spec, name } of containers())
      for (const probe of ['startupProbe', 'readinessProbe'])
        if (spec[probe]) expect([name, probe, project.probe(name, spec[probe])]).toEqual([name, probe, true]);
  }, 300_000);

  test('through web (nginx), a browser signs in and writes a post with a photo and a video; media processes them into the bucket; a visitor reads it', async () => {
    const started = Date.now();
    token = await writePostInAdminForm(project.browser, project.site, ADMIN, {
      title: 'Through Kubernetes',
      content: 'Played by **podman kube play**.',
    });
    postId = (await api('/api/posts?search=through+kubernetes', { token })).json[0].id as number;
    const post = await until(
      'media processed',
      async () => {
        const read = (await api(`/api/posts/${postId}`, { token })).json;
        return read.media?.every((m: Json) => m.status === 'ready') ? read : undefined;
      },
      120_000,
    );
    expect(run('podman', ['exec', container('minio'), 'find', '/data', '-type', 'f'])).toMatch(
      /private\/originals/,
    );
    await visitorReads(post.url as string);
    timings.journeySeconds = Math.round((Date.now() - started) / 100) / 10;
  }, 300_000);

  test('a reader subscribes, confirms from the mail sink (Mailpit, as through kubectl port-forward) and gets the digest', async () => {
    const { link, digest } = await subscribeAndGetDigest({
      site: project.site,
      api,
      mail,
      token,
      reader: 'kube-reader@example.com',
    });
    expect(link.startsWith(project.site)).toBe(true); // SITE_URL from the ConfigMap
    expect(digest.Text).toContain('Through Kubernetes');
  }, 400_000);

  let backup: Json;
  test(`the owner backs the blog up into ${BACKUP_TARGET} on MinIO, encrypted with BACKUP_PASSPHRASE from the Secret`, async () => {
    const started = await api('/api/admin/backups', { method: 'POST', token });
    expect(started.status).toBe(202);
    backup = await until(
      'the backup',
      async () => {
        const read = (await api(`/api/admin/backups/${started.json.id}`, { token })).json;
        if (read.state === 'failed') throw new Error(`backup failed: ${read.error}`);
        return read.state === 'done' ? read : undefined;
      },
      120_000,
    );
    expect(backup).toMatchObject({ target: BACKUP_TARGET, encrypted: true });
    expect(backup.file).toMatch(/^backups\/blog-.*\.blogbak\.age$/);
    expect((await api('/api/admin/backups', { token })).json.encrypted).toBe(true);
    expect(run('podman', ['exec', container('minio'), 'find', '/data/blog-backups', '-type', 'f'])).toContain(
      backup.file.split('/')[1],
    );
  }, 180_000);

  // A new image with a migration, played by undoing the posts schema's last migration: the new
  // posts pod's init container backs the blog up into the bucket, then migrates.
  test("an upgrade: the posts pod's upgrade init container backs the blog up into the bucket, then migrates; the services waited for it (MIGRATIONS_BY=upgrade)", async () => {
    const last = POSTS_MIGRATIONS.at(-1)!.name;
    // The backups' names in the bucket (the S3 stand-in keeps files of its own beside each object).
    const backups = () => [
      ...new Set(
        run('podman', ['exec', container('minio'), 'find', '/data/blog-backups', '-type', 'f']).match(
          /blog-\d{8}T\d{6}Z-[0-9a-f]{4}\.blogbak\.age/g,
        ),
      ),
    ];
    const ran = () =>
      run('podman', [
        'exec',
        container('postgres'),
        ...['psql', '-h', '/tmp', '-U', 'blog', '-d', 'blog', '-tAc'],
        `SELECT count(*) FROM posts.migrations WHERE name = '${last}'`,
      ]).trim();
    const before = backups();
    nodeInMedia(UNDO_LAST_POSTS_MIGRATION);
    expect(ran()).toBe('0');
    project.down('posts');
    project.replay('posts');
    await project.ready(play('posts'));
    expect(ran()).toBe('1');
    const after = backups();
    expect(after).toHaveLength(before.length + 1);
    const said = run('podman', ['logs', play('posts').init!.containers.upgrade!]);
    expect(said).toContain(`this version changes the database (posts: ${last}): backing the blog up first`);
    expect(said).toContain(`backed up to ${BACKUP_TARGET}/backups/`);
    expect(said).toContain("[upgrade] the database is this version's (backed up first)");
    // The other services run with MIGRATIONS_BY=upgrade from the ConfigMap.
    expect(run('podman', ['exec', container('auth'), 'printenv', 'MIGRATIONS_BY']).trim()).toBe('upgrade');
    // The gateway finds the new posts pod at its next connection: on a busy machine the first
    // reads may still fail (503), so the post is read until it answers, with 10x room.
    const title = await until(
      'the post through the new posts pod',
      async () => (await api(`/api/posts/${postId}`)).json.title as string | undefined,
      60_000,
    );
    expect(title).toBe('Through Kubernetes');
  }, 300_000);

  test("the claims keep the data: the database's pod removed (podman kube down) and played again, the post is still there", async () => {
    const claim = inspect(container('postgres')).Mounts.find(
      (m: Json) => m.Destination === '/var/lib/postgresql',
    );
    expect(claim).toMatchObject({ Type: 'volume', Name: 'data-postgres-0' });
    expect(project.claims.sort()).toEqual(['data-minio-0', 'data-postgres-0']);
    project.down('postgres');
    expect(run('podman', ['volume', 'ls', '--format', '{{.Name}}'])).toMatch(/^data-postgres-0$/m);
    project.replay('postgres');
    await project.ready(play('postgres'));
    await until(
      'the post after the database came back',
      async () =>
        (await api(`/api/posts/${postId}`)).json.title === 'Through Kubernetes' ? true : undefined,
      120_000,
    );
  }, 300_000);

  test('restore as the operator guide says: the bucket emptied from the media pod, every Node process scaled to 0, the schemas dropped, infra/k8s/restore-job.yaml run, all started again', async () => {
    const location = `${backup.target}/${backup.file}`;
    // The Job filled in as the guide's sed does (every line): the running posts image and the backup.
    const job = parseAllDocuments(
      readFileSync(join(ROOT, 'infra/k8s/restore-job.yaml'), 'utf8')
        .replaceAll('image: blog-app', `image: ${play('posts').template.spec.containers[0].image}`)
        .replaceAll('BACKUP_FILE', location),
    )[0]!.toJS() as Obj;
    new Job(job).validate();
    nodeInMedia(
      "import { createStorage } from '@blog/server-kit'; const s = await createStorage(process.env); await s.deleteMany(await s.list());",
    );
    const nodeProcesses = ['gateway', 'auth', 'posts', 'media', 'mail', 'social'];
    for (const name of nodeProcesses) project.down(name);
    run('podman', [
      'exec',
      container('postgres'),
      // the stand-in keeps its socket in /tmp (the official image in /var/run/postgresql)
      ...['psql', '-h', '/tmp', '-U', 'blog', '-d', 'blog', '-c'],
      'DROP SCHEMA IF EXISTS auth, posts, media, mail, social CASCADE',
    ]);
    const restore = project.playMore({ ...job, metadata: { ...job.metadata, namespace: 'blog' } });
    expect(await project.finished(restore)).toMatch(
      /restored the backup of .*: \d+ tables, \d+ rows, [1-9]\d* media files/,
    );
    project.down('restore');
    // web too: nginx resolved gateway at its start, and the new gateway pod has a new address
    // (a cluster's Service keeps one; see DIFFERENCES.service).
    for (const name of [...nodeProcesses, 'web']) project.replay(name);
    for (const name of [...nodeProcesses, 'web']) await project.ready(play(name));
    const url = await until(
      'the restored post',
      async () => ((await api(`/api/posts/${postId}`)).json as Json).url as string | undefined,
      120_000,
    );
    await visitorReads(url);
  }, 900_000);
});
