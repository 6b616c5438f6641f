import { createHash, type Hash } from 'node:crypto';
import { Transform, type Duplex, type Readable, type TransformCallback } from 'node:stream';

/*
 * A backup file's body (before gzip and encryption) is a run of records: one type byte, a
 * 4-byte big-endian length, the payload. The last record ('Z') carries the SHA-256 of every
 * byte before it, so a truncated or altered file is refused before anything is restored.
 */

export const RECORD = {
  /** The header, JSON (BackupHeader): first. */
  header: 0x48, // H
  /** A table starts, JSON {schema, table, columns}. */
  table: 0x54, // T
  /** A piece of the table's COPY text. */
  data: 0x44, // D
  /** The table ends, JSON {rows}. */
  tableEnd: 0x45, // E
  /** The sequences' values, JSON SequenceValue[]. */
  sequences: 0x51, // Q
  /** A batch of media objects, JSON MediaEntry[]. */
  media: 0x4d, // M
  /** The end, JSON {sha256, tables, rows, media}. */
  end: 0x5a, // Z
} as const;

/** A record's payload limit: COPY sends 64 kB pieces, JSON records are far smaller. */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;

export class BackupFormatError extends Error {
  override name = 'BackupFormatError';
}

export function encodeRecord(type: number, payload: Buffer | string | object): Buffer {
  const body = Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const head = Buffer.allocUnsafe(5);
  head[0] = type;
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Hashes every record that passes, and appends the end record carrying the digest. */
export class RecordHasher {
  private readonly hash: Hash = createHash('sha256');

  add(record: Buffer): Buffer {
    this.hash.update(record);
    return record;
  }

  end(summary: object): Buffer {
    return encodeRecord(RECORD.end, { ...summary, sha256: this.hash.digest('hex') });
  }
}

export interface Record {
  type: number;
  payload: Buffer;
}

/** Splits a byte stream back into records, checking each length and the end record's digest. */
export class RecordReader extends Transform {
  private buffered: Buffer[] = [];
  private size = 0;
  private readonly hash = createHash('sha256');
  ended = false;

  constructor() {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.buffered.push(chunk);
    this.size += chunk.length;
    try {
      this.drain();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.size > 0 || !this.ended)
      return callback(new BackupFormatError('the backup is incomplete: it ends before its last record'));
    callback();
  }

  private drain(): void {
    for (;;) {
      if (this.size < 5) return;
      const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
      this.buffered = [all];
      const length = all.readUInt32BE(1);
      if (length > MAX_RECORD_BYTES)
        throw new BackupFormatError('not a backup of this blog (a record is too large)');
      if (all.length < 5 + length) return;
      const type = all[0]!;
      const record = all.subarray(0, 5 + length);
      const rest = all.subarray(5 + length);
      this.buffered = rest.length ? [rest] : [];
      this.size = rest.length;
      if (this.ended) throw new BackupFormatError('the backup has data after its last record');
      if (type === RECORD.end) {
        const digest = this.hash.digest('hex');
        const summary = JSON.parse(record.subarray(5).toString()) as { sha256?: string };
        if (summary.sha256 !== digest)
          throw new BackupFormatError('the backup is damaged: its checksum does not match');
        this.ended = true;
      } else {
        this.hash.update(record);
      }
      this.push({ type, payload: Buffer.from(record.subarray(5)) } satisfies Record);
    }
  }
}

/** The records of a decoded stream, one at a time. */
export async function* readRecords(
  body: Readable,
  mapError = (error: Error) => error,
): AsyncGenerator<Record> {
  const reader = new RecordReader();
  body.on('error', (error) => reader.destroy(mapError(error)));
  body.pipe(reader);
  for await (const record of reader) yield record as Record;
}

export function parseJson<T>(record: Record, expected: number, what: string): T {
  if (record.type !== expected) throw new BackupFormatError(`not a backup of this blog (expected ${what})`);
  try {
    return JSON.parse(record.payload.toString()) as T;
  } catch {
    throw new BackupFormatError(`not a backup of this blog (${what} is not JSON)`);
  }
}

/**
 * `source.pipe(next)`, with the source's failure passed on: a plain pipe leaves `next` waiting
 * forever when its source fails, and the failure unhandled.
 */
export function pipeInto<T extends Duplex>(source: Readable, next: T, mapError = (error: Error) => error): T {
  source.on('error', (error) => next.destroy(mapError(error)));
  return source.pipe(next);
}
