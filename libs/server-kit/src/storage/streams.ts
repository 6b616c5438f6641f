import { Readable, Transform, type TransformCallback } from 'node:stream';
import { ObjectTooLargeError } from './object-storage.js';

/** Passes bytes through, counting them, and fails once more than `maxBytes` went by. */
export class ByteCounter extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes = Infinity) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return callback(new ObjectTooLargeError(this.maxBytes));
    callback(null, chunk);
  }
}

/** A Readable over a body given either as a stream or a Buffer. */
export function toReadable(body: Readable | Buffer): Readable {
  if (Buffer.isBuffer(body)) return Readable.from([body]);
  if (body instanceof Readable) return body;
  throw new TypeError('put body must be a Readable or a Buffer');
}

/**
 * Drops the first `skip` bytes of a stream, passes the next `length`, then ends and
 * destroys the source. Used when a server answers a range with more than was asked.
 */
export function sliceStream(source: Readable, skip: number, length: number): Readable {
  let toSkip = skip;
  let left = length;
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (left <= 0) return callback();
      let part = chunk;
      if (toSkip > 0) {
        const dropped = Math.min(toSkip, part.length);
        toSkip -= dropped;
        part = part.subarray(dropped);
      }
      if (part.length > left) part = part.subarray(0, left);
      left -= part.length;
      callback(null, part.length > 0 ? part : undefined);
      if (left <= 0) {
        source.unpipe(this);
        source.destroy();
        this.end();
      }
    },
  });
  source.on('error', (error) => out.destroy(error));
  out.on('close', () => source.destroy());
  if (length <= 0) {
    source.destroy();
    out.end();
    return out;
  }
  return source.pipe(out);
}
