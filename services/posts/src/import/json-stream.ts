import { pipeline, Readable, Transform } from 'node:stream';
import { ImportTimeout } from './import-job.js';
import { breather, describeBytes, IMPORT_LIMITS, overLimit } from './import-limits.js';
import { ImportFileError } from './source-post.js';

type Token = { name: string; value?: string };

const CHUNKS = new Set(['stringChunk', 'keyChunk', 'numberChunk']);
const STARTS = new Set(['startString', 'startKey', 'startNumber']);

/**
 * Refuses, as the tokens stream by and before anything assembles them, a string, key or number
 * longer than IMPORT_LIMITS.text and arrays or objects nested deeper than IMPORT_LIMITS.depth.
 */
function tokenGuard(): Transform {
  let length = 0;
  let depth = 0;
  return new Transform({
    objectMode: true,
    transform(token: Token, _encoding, done) {
      if (STARTS.has(token.name)) length = 0;
      else if (CHUNKS.has(token.name)) {
        length += token.value!.length;
        if (length > IMPORT_LIMITS.text)
          return done(overLimit(`a text of more than ${describeBytes(IMPORT_LIMITS.text)}`));
      } else if (token.name === 'startObject' || token.name === 'startArray') {
        if (++depth > IMPORT_LIMITS.depth)
          return done(overLimit(`arrays or objects nested more than ${IMPORT_LIMITS.depth} deep`));
      } else if (token.name === 'endObject' || token.name === 'endArray') depth--;
      done(null, token);
    },
  });
}

/**
 * Refuses a value (an element of the array read, or the whole value) whose texts together pass
 * IMPORT_LIMITS.item, before it is assembled: each value is held whole in memory once built.
 */
function valueGuard(elements: boolean): Transform {
  let size = 0;
  let depth = 0;
  return new Transform({
    objectMode: true,
    transform(token: Token, _encoding, done) {
      if (token.name === 'startObject' || token.name === 'startArray') depth++;
      else if (token.name === 'endObject' || token.name === 'endArray') depth--;
      else if (CHUNKS.has(token.name)) size += token.value!.length;
      size += 8; // every token costs something to hold
      if (size > IMPORT_LIMITS.item)
        return done(overLimit(`a record of more than ${describeBytes(IMPORT_LIMITS.item)}`));
      // Inside the array read, depth 1 is between its elements: the next element starts afresh.
      if (elements ? depth <= 1 : depth === 0) size = 0;
      done(null, token);
    },
  });
}

/**
 * The file in slices of 16 KB with a pause for the event loop every 10 ms: the parser turns a
 * slice into thousands of tokens at once, and passes over parts nobody waits for (the tags
 * while the posts are counted) give no other occasion to pause.
 */
function paced(stream: Readable): Readable {
  return Readable.from(
    (async function* () {
      const pause = breather();
      for await (const chunk of stream) {
        const buffer = chunk as Buffer;
        for (let at = 0; at < buffer.length; at += 16 * 1024) {
          yield buffer.subarray(at, at + 16 * 1024);
          await pause();
        }
      }
    })(),
    { objectMode: false },
  );
}

/**
 * The values at `path` in a JSON document (each element when `elements`), parsed as a stream
 * with stream-json: memory holds one value at a time, whatever the file's size. `seen.found`
 * tells whether anything was at the path.
 */
export async function* jsonAt<T>(
  stream: Readable,
  path: RegExp,
  { elements = true, seen }: { elements?: boolean; seen?: { found: boolean } } = {},
): AsyncGenerator<T> {
  // Loaded with the first JSON file an import reads, not with every start of the service.
  const [{ default: parserStream }, { default: pick }, { default: streamArray }, { default: streamValues }] =
    await Promise.all([
      import('stream-json'),
      import('stream-json/filters/pick.js'),
      import('stream-json/streamers/stream-array.js'),
      import('stream-json/streamers/stream-values.js'),
    ]);
  const mark = new Transform({
    objectMode: true,
    transform(token: Token, _encoding, done) {
      if (seen) seen.found = true;
      done(null, token);
    },
  });
  // pipeline destroys every stage on an error, so the loop below ends with it.
  const values = pipeline(
    paced(stream),
    // Strings are streamed in chunks (the guard counts them) and packed for the assembler.
    parserStream({ streamValues: true, packValues: true }),
    tokenGuard(),
    pick.asStream({ filter: path }),
    mark,
    valueGuard(elements),
    elements ? streamArray.asStream() : streamValues.asStream(),
    () => undefined,
  );
  try {
    const pause = breather();
    for await (const { value } of values as unknown as AsyncIterable<{ value: T }>) {
      yield value;
      await pause();
    }
  } catch (error) {
    if (error instanceof ImportFileError || error instanceof ImportTimeout) throw error;
    throw new ImportFileError(`The file is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}
