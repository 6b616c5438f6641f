// mc alias set NAME URL KEY SECRET | mc mb [--ignore-existing] NAME/BUCKET | mc ls [--recursive] NAME/BUCKET
import { CreateBucketCommand, ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { readFileSync, writeFileSync } from 'node:fs';

const ALIASES = '/tmp/mc-aliases.json';
const aliases = () => {
  try {
    return JSON.parse(readFileSync(ALIASES, 'utf8'));
  } catch {
    return {};
  }
};
const client = ({ url, key, secret }) =>
  new S3Client({
    endpoint: url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: key, secretAccessKey: secret },
  });
const target = (arg) => {
  const [name, bucket, ...rest] = arg.split('/');
  const alias = aliases()[name];
  if (!alias) throw new Error(`mc: unknown alias ${name}`);
  return { s3: client(alias), bucket, prefix: rest.join('/') };
};

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const [verb, ...rest] = args.filter((a) => !a.startsWith('--'));
try {
  if (verb === 'alias' && rest[0] === 'set') {
    const [, name, url, key, secret] = rest;
    await client({ url, key, secret }).send(new ListBucketsCommand({}));
    writeFileSync(ALIASES, JSON.stringify({ ...aliases(), [name]: { url, key, secret } }));
    console.log(`Added \`${name}\` successfully.`);
  } else if (verb === 'mb') {
    const { s3, bucket } = target(rest[0]);
    try {
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    } catch (error) {
      const exists = ['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes(error.name);
      if (!(exists && flags.has('--ignore-existing'))) throw error;
    }
    console.log(`Bucket created successfully \`${rest[0]}\`.`);
  } else if (verb === 'ls') {
    const { s3, bucket, prefix } = target(rest[0]);
    let token;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) console.log(`${object.Size}\t${object.Key}`);
      token = page.NextContinuationToken;
    } while (token && flags.has('--recursive'));
  } else {
    throw new Error(`This mc stand-in knows: alias set, mb, ls (got: ${args.join(' ')})`);
  }
} catch (error) {
  console.error(`mc: ${error.message}`);
  process.exit(1);
}
