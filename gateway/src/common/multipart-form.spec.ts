import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { ApiError } from './api-error.js';
import { readMultipart, type MultipartForm } from './multipart-form.js';

/** The one multipart reader on a real HTTP server, with the forms' own choices made here. */
describe('readMultipart', () => {
  let server: Server;
  let base: string;
  let form: MultipartForm;
  let files: string[];
  let failures: unknown[];
  let settled: Promise<unknown>;

  /** A form that reads each file to its end, one after another. */
  const reading = (choices: Partial<MultipartForm> = {}): MultipartForm => {
    let work: Promise<void> = Promise.resolve();
    return {
      limits: { files: 2, fields: 3, fieldSize: 16 },
      tooManyFiles: new ApiError(413, 'Two files at most'),
      onFile: (field, stream, info, { fail }) => {
        work = work.then(async () => {
          let text = '';
          for await (const chunk of stream) text += String(chunk);
          files.push(`${field}:${info.filename}:${text}`);
        }, fail);
      },
      pending: () => work,
      ...choices,
    };
  };

  const body = (parts: [string, string | Blob, string?][]) => {
    const data = new FormData();
    for (const [name, value, filename] of parts)
      if (typeof value === 'string') data.append(name, value);
      else data.append(name, value, filename);
    return data;
  };

  const post = async (data: FormData | string, headers: Record<string, string> = {}) => {
    let sent: string | ArrayBuffer = data as string;
    // A form goes as one buffer: the server may answer and close before a streamed body's last write.
    if (data instanceof FormData) {
      const encoded = new Response(data);
      headers = { ...headers, 'content-type': encoded.headers.get('content-type')! };
      sent = await encoded.arrayBuffer();
    }
    const response = await fetch(base, { method: 'POST', body: sent, headers });
    return {
      status: response.status,
      connection: response.headers.get('connection'),
      json: await response.json(),
    };
  };

  beforeAll(async () => {
    const app = express();
    app.post('/', (req, res) => {
      settled = readMultipart(req, res, form).then(
        (fields) => res.json({ fields }),
        (error: unknown) => {
          failures.push(error);
          if (error instanceof ApiError) res.status(error.getStatus()).json(error.getResponse());
          else res.status(500).json({ error: String(error) });
        },
      );
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    files = [];
    failures = [];
    form = reading();
  });

  it('answers the fields once every file is read to its end', async () => {
    const answer = await post(
      body([
        ['title', 'Brakes'],
        ['file', new Blob(['first bytes']), 'a.txt'],
        ['file', new Blob(['second bytes']), 'b.txt'],
        ['tags', 'car'],
      ]),
    );
    expect(answer).toMatchObject({ status: 200, json: { fields: { title: 'Brakes', tags: 'car' } } });
    expect(files).toEqual(['file:a.txt:first bytes', 'file:b.txt:second bytes']);
  });

  it('a body that is not multipart, or is cut short, is a 400', async () => {
    expect(await post('{"title":"x"}', { 'content-type': 'application/json' })).toMatchObject({
      status: 400,
      json: { error: 'Expected a multipart/form-data body' },
    });
    const cut = '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nBrakes';
    expect(await post(cut, { 'content-type': 'multipart/form-data; boundary=b' })).toMatchObject({
      status: 400,
      connection: 'close',
      json: { error: 'Malformed multipart body' },
    });
  });

  it("past a limit: a long field is a 413, a file too many the form's answer, extra fields dropped unless the form refuses them", async () => {
    expect(await post(body([['title', 'x'.repeat(17)]]))).toMatchObject({
      status: 413,
      connection: 'close',
      json: { error: 'Field "title" is too large' },
    });
    const three = body([1, 2, 3].map((n) => ['file', new Blob([`bytes ${n}`]), `${n}.txt`]));
    expect(await post(three)).toMatchObject({ status: 413, json: { error: 'Two files at most' } });
    const four = () => body(['a', 'b', 'c', 'd'].map((name) => [name, name]));
    expect((await post(four())).json).toEqual({ fields: { a: 'a', b: 'b', c: 'c' } });
    form = reading({ tooManyFields: new ApiError(413, 'Three fields at most') });
    expect(await post(four())).toMatchObject({ status: 413, json: { error: 'Three fields at most' } });
  });

  it('a form missing what it needs fails once the body is read', async () => {
    form = reading({ missing: () => (files.length ? undefined : new ApiError(400, 'Send a file')) });
    expect(await post(body([['title', 'Brakes']]))).toMatchObject({
      status: 400,
      json: { error: 'Send a file' },
    });
    expect((await post(body([['file', new Blob(['x']), 'x.txt']]))).status).toBe(200);
  });

  it("the first failure wins: the signal aborts, onFailure runs once, the answer waits for the files' work", async () => {
    const aborted: boolean[] = [];
    let onFailure = 0;
    let slowDone = false;
    form = reading({
      onFile: (_field, stream, _info, { fail, signal }) => {
        stream.resume();
        fail(new ApiError(422, 'Not this file'));
        fail(new ApiError(400, 'A later failure'));
        aborted.push(signal.aborted);
      },
      pending: () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            slowDone = true;
            resolve();
          }, 50),
        ),
      onFailure: () => void onFailure++,
    });
    const answer = await post(body([['file', new Blob(['x']), 'x.txt']]));
    expect(answer).toMatchObject({ status: 422, connection: 'close', json: { error: 'Not this file' } });
    expect({ aborted, onFailure, slowDone }).toEqual({ aborted: [true], onFailure: 1, slowDone: true });
  });

  it('a client gone half-way is a 400, Upload interrupted, and the signal aborts', async () => {
    let fileEnded: Promise<unknown> = Promise.resolve();
    form = reading({
      onFile: (_field, stream, _info, { signal }) => {
        fileEnded = new Promise((resolve) => signal.addEventListener('abort', resolve));
        stream.resume();
      },
    });
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const part =
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n' + 'x'.repeat(1000);
    socket.write(
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n${part}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    for (const deadline = Date.now() + 2000; !failures.length && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await settled;
    await fileEnded;
    expect(failures).toHaveLength(1);
    expect((failures[0] as ApiError).getResponse()).toEqual({ error: 'Upload interrupted' });
    expect((failures[0] as ApiError).getStatus()).toBe(400);
  });
});
