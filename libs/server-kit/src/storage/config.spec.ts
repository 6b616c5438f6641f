import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { createStorage, storageEnv } from './config.js';
import { LocalFolderStorage } from './local-folder-storage.js';
import { S3Storage } from './s3-storage.js';

describe('storage configuration', () => {
  it('uses the folder DATA_DIR/uploads when S3_ENDPOINT is unset (DATA_DIR defaults to ./data)', async () => {
    const byDefault = await createStorage({});
    expect(byDefault).toBeInstanceOf(LocalFolderStorage);
    expect((byDefault as LocalFolderStorage).root).toBe(resolve('data', 'uploads'));
    const chosen = await createStorage({ DATA_DIR: '/srv/blog', S3_ENDPOINT: '' });
    expect((chosen as LocalFolderStorage).root).toBe('/srv/blog/uploads');
  });

  it('uses S3 when S3_ENDPOINT is set, with path-style addressing and region by default', async () => {
    const storage = (await createStorage({
      S3_ENDPOINT: 'http://minio:9000',
      S3_BUCKET: 'blog-media',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
    })) as S3Storage;
    expect(storage).toBeInstanceOf(S3Storage);
    expect(storage.kind).toBe('s3');
    expect(storage.bucket).toBe('blog-media');
    expect(storage.client.config.forcePathStyle).toBe(true);
    expect(await storage.client.config.region()).toBe('us-east-1');
    expect(await storage.client.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    expect(await storage.client.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
    storage.destroy();
  });

  it('parses S3_FORCE_PATH_STYLE and S3_REGION', () => {
    const config = loadConfig(storageEnv, {
      S3_ENDPOINT: 'https://s3.example.com',
      S3_BUCKET: 'media',
      S3_REGION: 'eu-west-3',
      S3_FORCE_PATH_STYLE: 'false',
    });
    expect(config).toMatchObject({ S3_REGION: 'eu-west-3', S3_FORCE_PATH_STYLE: false, DATA_DIR: './data' });
    expect(loadConfig(storageEnv, {}).S3_FORCE_PATH_STYLE).toBe(true);
  });

  it.each([
    [{ S3_ENDPOINT: 'http://minio:9000' }, /S3_BUCKET: S3_BUCKET is required/],
    [{ S3_ENDPOINT: 'minio:9000', S3_BUCKET: 'media' }, /S3_ENDPOINT: must be an http\(s\) URL/],
    [{ S3_ENDPOINT: 'http://minio:9000', S3_BUCKET: 'Bad_Bucket' }, /S3_BUCKET: must be a valid bucket name/],
    [{ S3_ENDPOINT: 'http://minio:9000', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'k' }, /S3_SECRET_ACCESS_KEY/],
    [{ S3_FORCE_PATH_STYLE: 'maybe' }, /S3_FORCE_PATH_STYLE: must be true or false/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => createStorage(env)).toThrow(ConfigError);
    expect(() => createStorage(env)).toThrow(message);
  });
});
