import { pipeline, Transform, type Readable } from 'node:stream';
import parserStream from 'stream-json';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import streamValues from 'stream-json/streamers/stream-values.js';
import { ImportFileError } from './source-post.js';

/** One string of an export longer than this (a post's text is far less) is refused. */
const MAX_STRING = 32 * 1024 * 1024;

type Token = { name: string; value?: string };

/** Refuses a string longer than MAX_STRING as it streams by, before anything assembles it. */
function stringGuard(): Transform {
  let length = 0;
  return new Transform({
    objectMode: true,
    transform(token: Token, _encoding, done) {
      if (token.name === 'startString') length = 0;
      else if (token.name === 'stringChunk') {
        length += token.value!.length;
        if (length > MAX_STRING)
          return done(new ImportFileError('The file holds a text of more than 32 MB: not a blog export'));
      }
      done(null, token);
    },
  });
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
  const mark = new Transform({
    objectMode: true,
    transform(token: Token, _encoding, done) {
      if (seen) seen.found = true;
      done(null, token);
    },
  });
  // pipeline destroys every stage on an error, so the loop below ends with it.
  const values = pipeline(
    stream,
    // Strings are streamed in chunks (the guard counts them) and packed for the assembler.
    parserStream({ streamStrings: true, packStrings: true }),
    stringGuard(),
    pick.asStream({ filter: path }),
    mark,
    elements ? streamArray.asStream() : streamValues.asStream(),
    () => undefined,
  );
  try {
    for await (const { value } of values as AsyncIterable<{ value: T }>) yield value;
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(`The file is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}
