/**
 * What the posts routes refuse, through the gateway (real services, real files in storage),
 * storing nothing each time: unknown posts (404), bad fields, files that are no supported
 * image or video (after good ones), a 101 MB file (413, memory flat), a client that disconnects
 * half-way, and a write while the posts service is down.
 */
import { request as httpRequest } from 'node:http';
import { fields, makeHeic, makeImage, makeMp4, multipart } from './support/media-fixtures.js';
import { usePostsStack } from './support/posts-stack.js';
import { api, type TestStack } from './support/test-stack.js';

describe('posts refusals through the gateway (real services, real files in storage)', () => {
  const rig = usePostsStack();
  const { send, stored } = rig;
  let stack: TestStack;
  let admin: string;
  beforeAll(() => ({ stack, admin } = rig));

  it('answers 404 for unknown posts', async () => {
    for (const path of ['/api/posts/999999', '/api/posts/by-slug/no-such-post', '/api/posts/abc']) {
      const response = await api(stack, path);
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ error: 'Post not found' });
    }
  });

  it.each([
    ['a blank title', fields({ title: '   ', category: 'Projects' }), 400, 'Title is required'],
    ['an unknown category', fields({ title: 'X', category: 'Boats' }), 400, 'Unknown category "Boats"'],
    [
      'an unknown submenu1',
      fields({ title: 'X', category: 'Garage', submenu1: 'Boats' }),
      400,
      'Unknown submenu1 "Boats" in Garage',
    ],
    [
      'an unknown submenu2',
      fields({ title: 'X', category: 'Garage', submenu1: 'Automobiles', submenu2: 'Bike One' }),
      400,
      'Unknown submenu2 "Bike One" in Garage / Automobiles',
    ],
    [
      'a bad YouTube URL',
      fields({ title: 'X', category: 'Projects', youtubeUrls: JSON.stringify(['https://vimeo.com/1']) }),
      400,
      'Please enter a valid YouTube URL (youtubeUrls[0])',
    ],
    [
      'bad JSON in a field',
      fields({ title: 'X', category: 'Projects', unifiedMedia: '{oops' }),
      400,
      'unifiedMedia must be valid JSON',
    ],
  ])('refuses %s with a clear message and stores nothing', async (_label, parts, status, error) => {
    const before = await stored();
    const response = await send('POST', '/api/posts', [
      ...parts,
      { name: 'files', file: { filename: 'ok.png', type: 'image/png', data: await makeImage('png') } },
    ]);
    expect(response.status).toBe(status);
    expect(response.json).toEqual({ error });
    expect(await stored()).toEqual(before);
  });

  it.each([
    [
      'a text file named .jpg',
      { filename: 'notes.jpg', type: 'image/jpeg', data: Buffer.from('just some text, not an image') },
      'File "notes.jpg" is not a supported image or video format.',
    ],
    [
      'a PDF',
      { filename: 'doc.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.7\n' + 'x'.repeat(200)) },
      'File "doc.pdf" is not a supported image or video format.',
    ],
    [
      'a HEIC by name',
      { filename: 'IMG_0001.HEIC', type: 'image/jpeg', data: Buffer.from('whatever') },
      'HEIC file "IMG_0001.HEIC" was rejected. Please convert it to JPEG or PNG format before uploading.',
    ],
    [
      'a HEIC by content',
      { filename: 'photo.jpg', type: 'image/jpeg', data: makeHeic() },
      'HEIC file "photo.jpg" was rejected. Please convert it to JPEG or PNG format before uploading.',
    ],
  ])('rejects %s after good files, leaving no file and no post', async (_label, file, error) => {
    const before = await stored();
    const total = (await api(stack, '/api/posts')).headers.get('x-total-count');
    const response = await send('POST', '/api/posts', [
      ...fields({ title: 'Should not exist', category: 'Projects' }),
      { name: 'files', file: { filename: 'good.jpg', type: 'image/jpeg', data: await makeImage('jpeg') } },
      { name: 'files', file },
    ]);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error });
    expect(await stored()).toEqual(before);
    expect((await api(stack, '/api/posts')).headers.get('x-total-count')).toBe(total);
  });

  it('rejects a 101 MB file with 413 while memory stays flat, storing nothing', async () => {
    const before = await stored();
    const boundary = '----big';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBig\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="category"\r\n\r\nProjects\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="huge.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    const total = 101 * 1024 * 1024;
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const result = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${stack.baseUrl}/api/posts`, {
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          authorization: `Bearer ${admin}`,
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.write(head);
      const mp4 = makeMp4();
      const chunk = Buffer.alloc(256 * 1024, 1);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          const piece = sent === 0 ? Buffer.concat([mp4, chunk.subarray(mp4.length)]) : chunk;
          sent += piece.length;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        req.end(`\r\n--${boundary}--\r\n`);
      };
      req.on('close', () => (sent = total)); // the server may close the connection early
      pump();
    });
    clearInterval(sampler);
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body)).toEqual({
      error: 'File "huge.mp4" is too large. Maximum size is 100MB.',
    });
    // A body held whole would add at least its 101 MB. Node 24's V8 lets about 64 MB of dead
    // socket buffers (external memory) build up before it collects them, so the flat line
    // sits near 64-80 MB here (it was under 64 on Node 20, on the same code).
    expect((peak - rssBefore) / 1024 / 1024).toBeLessThan(96);
    expect(await stored()).toEqual(before);
  }, 60_000);

  it('leaves no file behind when the client disconnects half-way', async () => {
    const { body, contentType } = multipart([
      ...fields({ title: 'Interrupted', category: 'Projects' }),
      { name: 'files', file: { filename: 'a.jpg', type: 'image/jpeg', data: await makeImage('jpeg') } },
      {
        name: 'files',
        file: {
          filename: 'b.jpg',
          type: 'image/jpeg',
          data: Buffer.concat([await makeImage('jpeg'), Buffer.alloc(2_000_000)]),
        },
      },
    ]);
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${stack.baseUrl}/api/posts`, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          'content-length': String(body.length),
          authorization: `Bearer ${admin}`,
        },
      });
      req.on('error', () => resolve());
      req.write(body.subarray(0, body.length - 500_000), () =>
        setTimeout(() => (req.destroy(), resolve()), 300),
      );
    });
    // The gateway removes what it stored once it sees the connection gone (later on a loaded machine).
    for (const deadline = Date.now() + 10_000; (await stored()).length > 0 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 100));
    expect(await stored()).toEqual([]);
    const list = await api(stack, '/api/posts?search=Interrupted');
    expect(list.json).toEqual([]);
  });

  it('deletes the stored files when the posts service is down', async () => {
    await stack.services.posts.close();
    try {
      const response = await send('POST', '/api/posts', [
        ...fields({ title: 'While down', category: 'Projects' }),
        { name: 'files', file: { filename: 'a.jpg', type: 'image/jpeg', data: await makeImage('jpeg') } },
      ]);
      expect(response.status).toBe(503);
      expect(await stored()).toEqual([]);
    } finally {
      await stack.restartPosts();
    }
  });
});
