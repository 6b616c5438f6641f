import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containersEnabled, startTestContainer, TEST_IMAGES } from './containers.js';
import { freePort } from './ports.js';

/** s3rver ships no types; this is the part of it the tests use. */
interface S3rverServer {
  run(): Promise<unknown>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
}) => S3rverServer;

export interface TestS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Stops the server and removes its data. */
  close(): Promise<void>;
}

/**
 * A real S3-compatible server: a container of the compose file's MinIO image when the run has
 * a container engine (see containers.ts), else s3rver in this process on a free port, its
 * buckets in a temporary folder.
 */
export async function startTestS3(): Promise<TestS3> {
  if (containersEnabled()) {
    const credentials = { accessKeyId: 'blog-test', secretAccessKey: 'blog-test-secret-0123' };
    const container = await startTestContainer({
      image: TEST_IMAGES.s3,
      ports: [9000],
      command: ['server', '/data'],
      environment: {
        MINIO_ROOT_USER: credentials.accessKeyId,
        MINIO_ROOT_PASSWORD: credentials.secretAccessKey,
      },
    });
    return { endpoint: `http://127.0.0.1:${container.port(9000)}`, ...credentials, close: container.close };
  }
  // Loaded when called: s3rver is a dev dependency, never needed by a running blog.
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const directory = await mkdtemp(join(tmpdir(), 'blog-s3rver-'));
  const port = await freePort();
  const server = new S3rver({ address: '127.0.0.1', port, directory, silent: true });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
