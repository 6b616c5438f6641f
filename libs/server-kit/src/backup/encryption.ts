import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/*
 * Encryption in the age format (age-encryption.org/v1, the `age-encryption` package), so a
 * backup can also be opened with the `age` command. A backup file is encrypted with the
 * passphrase; media blobs, many and large, with an X25519 key of the target's own. That key is
 * kept in the target encrypted with the passphrase, and travels in each backup's header, so a
 * backup file and the target's blobs are enough to restore.
 */

/**
 * scrypt's cost for the passphrase (2^15: 32 MB and a fraction of a second). age's default,
 * 2^18, takes 256 MB, more than a whole small blog may use; the passphrase's strength is the
 * owner's part.
 */
const SCRYPT_LOG_N = 15;

const AGE_MAGIC = Buffer.from('age-encryption.org/v1\n');

export class BackupPassphraseError extends Error {
  override name = 'BackupPassphraseError';
}

const age = () => import('age-encryption');

function toWeb(body: Readable): ReadableStream<Uint8Array> {
  return Readable.toWeb(body) as unknown as ReadableStream<Uint8Array>;
}

function fromWeb(body: ReadableStream<Uint8Array>): Readable {
  return Readable.fromWeb(body as unknown as WebReadableStream<Uint8Array>);
}

/** True when `head` (a file's first bytes) starts an age file. */
export function isEncrypted(head: Buffer): boolean {
  return head.subarray(0, AGE_MAGIC.length).equals(AGE_MAGIC);
}

export async function encryptWithPassphrase(body: Readable, passphrase: string): Promise<Readable> {
  const { Encrypter } = await age();
  const encrypter = new Encrypter();
  encrypter.setScryptWorkFactor(SCRYPT_LOG_N);
  encrypter.setPassphrase(passphrase);
  return fromWeb(await encrypter.encrypt(toWeb(body)));
}

export async function decryptWithPassphrase(body: Readable, passphrase: string): Promise<Readable> {
  const { Decrypter } = await age();
  const decrypter = new Decrypter();
  decrypter.addPassphrase(passphrase);
  try {
    return fromWeb(await decrypter.decrypt(toWeb(body)));
  } catch (error) {
    throw new BackupPassphraseError(`cannot decrypt the backup: ${passphraseReason(error)}`);
  }
}

function passphraseReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /no identity matched|incorrect|failed to decrypt|unwrap/i.test(message)
    ? 'wrong passphrase (BACKUP_PASSPHRASE)'
    : `not an age file this blog can read (${message})`;
}

/** The target's key for media blobs: an age X25519 identity. */
export interface BlobKey {
  /** Names the key in blob paths: the first 12 hex digits of SHA-256 of its recipient. */
  id: string;
  identity: string;
  recipient: string;
}

export async function newBlobKey(): Promise<BlobKey> {
  const { generateX25519Identity } = await age();
  const identity = await generateX25519Identity();
  return blobKeyOf(identity);
}

export async function blobKeyOf(identity: string): Promise<BlobKey> {
  const { identityToRecipient } = await age();
  const recipient = await identityToRecipient(identity);
  return { id: createHash('sha256').update(recipient).digest('hex').slice(0, 12), identity, recipient };
}

export async function sealBlobKey(key: BlobKey, passphrase: string): Promise<Buffer> {
  const { Encrypter } = await age();
  const encrypter = new Encrypter();
  encrypter.setScryptWorkFactor(SCRYPT_LOG_N);
  encrypter.setPassphrase(passphrase);
  return Buffer.from(await encrypter.encrypt(key.identity));
}

/** The key, or null when `sealed` was made with another passphrase. */
export async function openBlobKey(sealed: Buffer, passphrase: string): Promise<BlobKey | null> {
  const { Decrypter } = await age();
  const decrypter = new Decrypter();
  decrypter.addPassphrase(passphrase);
  try {
    return await blobKeyOf(await decrypter.decrypt(new Uint8Array(sealed), 'text'));
  } catch {
    return null;
  }
}

export async function encryptBlob(body: Readable, key: BlobKey): Promise<Readable> {
  const { Encrypter } = await age();
  const encrypter = new Encrypter();
  encrypter.addRecipient(key.recipient);
  return fromWeb(await encrypter.encrypt(toWeb(body)));
}

export async function decryptBlob(body: Readable, key: BlobKey): Promise<Readable> {
  const { Decrypter } = await age();
  const decrypter = new Decrypter();
  decrypter.addIdentity(key.identity);
  return fromWeb(await decrypter.decrypt(toWeb(body)));
}
