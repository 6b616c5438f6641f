/** infra/Dockerfile: its stages, what goes into each image, and the build context. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DOCKERFILE,
  K8S_DIR,
  NGINX_CONF,
  NODE_PROCESSES,
  renderKustomization,
  ROOT,
  type NodeProcess,
} from './support/deploy.js';

describe('infra/Dockerfile', () => {
  const dockerfile = readFileSync(DOCKERFILE, 'utf8').replace(/\\\n/g, ' ');
  const lines = dockerfile.split('\n').map((line) => line.trim());
  const stages = new Map<string, string[]>();
  let current = '';
  for (const line of lines) {
    const from = /^FROM\s+\S+\s+AS\s+(\S+)/i.exec(line);
    if (from) {
      current = from[1];
      stages.set(current, []);
    }
    if (current && line && !line.startsWith('#')) stages.get(current)!.push(line);
  }
  const stage = (name: string) => {
    expect(stages.has(name)).toBe(true);
    return stages.get(name)!;
  };

  it('copies the manifest of every npm workspace before `npm ci`', () => {
    const workspaces = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces as string[]
    ).sort();
    const copied = stage('manifests')
      .map((line) => /^COPY\s+(\S+)\/package\.json\s/.exec(line)?.[1])
      .filter(Boolean)
      .sort();
    expect(copied).toEqual(workspaces);
  });

  it('builds on node:24-bookworm-slim with npm ci and npm run build, and installs production dependencies apart', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
    expect(stage('build').join('\n')).toMatch(
      /RUN (--mount=type=secret,id=npm_ca \S+ )?npm ci\n[\s\S]*RUN npm run build/,
    );
    expect(stage('prod-deps').join('\n')).toMatch(/npm ci --omit=dev/);
    for (const name of Object.keys(NODE_PROCESSES) as NodeProcess[]) {
      const workspace = NODE_PROCESSES[name].split('/dist/')[0];
      const packageName = JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8')).name;
      expect(stage('prod-deps').join('\n')).toContain(`--workspace=${packageName}`);
    }
  });

  it('puts every server workspace’s build output in the app image, which runs as a non-root user', () => {
    const app = stage('app');
    const serverWorkspaces = [
      'libs/contracts',
      'libs/server-kit',
      ...Object.values(NODE_PROCESSES).map((e) => e.split('/dist/')[0]),
    ];
    for (const workspace of serverWorkspaces) {
      expect(app).toContain(`COPY --from=build /app/${workspace}/dist ${workspace}/dist`);
    }
    const user = app.filter((line) => line.startsWith('USER ')).at(-1);
    expect(user).toMatch(/^USER [1-9]\d*(:[1-9]\d*)?$/);
    // The Kubernetes pods' runAsUser is the image's user.
    const objects = renderKustomization(K8S_DIR);
    const gatewayPod = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!;
    expect(`USER ${gatewayPod.spec.template.spec.securityContext.runAsUser}`).toBe(user!.split(':')[0]);
    expect(app.at(-1)).toBe('CMD ["node", "gateway/dist/main.js"]');
  });

  it('builds the web image from nginx with the committed config and the web build', () => {
    const web = stage('web');
    expect(web).toContain('COPY infra/nginx/nginx.conf /etc/nginx/nginx.conf');
    expect(web).toContain('COPY --from=build /app/web/dist /usr/share/nginx/html');
    expect(readFileSync(NGINX_CONF, 'utf8')).toContain('root /usr/share/nginx/html;');
    expect(web.filter((line) => line.startsWith('USER ')).at(-1)).toMatch(/^USER [1-9]\d*(:[1-9]\d*)?$/);
  });

  it('keeps dependencies, build output and secrets out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.env', '.git']));
    // Anything the Dockerfile copies by name must not be ignored.
    expect(ignored).not.toContain('infra/nginx');
    expect(ignored).toContain('!e2e/package.json');
  });
});
