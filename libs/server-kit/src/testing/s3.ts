import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  /** s3rver's fixed credentials. */
  accessKeyId: 'S3RVER';
  secretAccessKey: 'S3RVER';
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
}

/** A real S3-compatible server (s3rver) on a free port, its buckets in a temporary folder. */
export async function startTestS3(): Promise<TestS3> {
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
