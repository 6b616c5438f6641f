import sharp from 'sharp';
import type { PostView } from '@blog/contracts';

/** A JPEG photo-like image of the given size and colour, made by sharp. */
export function makeJpeg(
  width: number,
  height: number,
  color: { r: number; g: number; b: number },
): Promise<Buffer> {
  const stripes = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect width="100%" height="100%" fill="rgb(${color.r},${color.g},${color.b})"/>` +
      `<circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="white"/>` +
      `<rect x="0" y="${height - height / 6}" width="${width}" height="${height / 6}" fill="black"/></svg>`,
  );
  return sharp(stripes).jpeg({ quality: 80 }).toBuffer();
}

export async function signInApi(baseUrl: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!response.ok) throw new Error(`sign-in failed: ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

export interface NewPost {
  title: string;
  content?: string;
  category: string;
  submenu1?: string;
  submenu2?: string;
  tags?: string[];
  date?: string;
  files?: { name: string; type: string; data: Buffer }[];
  youtubeUrls?: string[];
  cropSettings?: { x: number; y: number; scale: number };
  /** Other form fields as sent (status, unifiedMedia with alt, caption and refs). */
  fields?: Record<string, string>;
}

/** Creates a post through the real multipart API, as the admin form does (docs/api.md). */
export async function createPost(baseUrl: string, token: string, post: NewPost): Promise<PostView> {
  const form = new FormData();
  form.set('title', post.title);
  form.set('content', post.content ?? '');
  form.set('category', post.category);
  if (post.submenu1) form.set('submenu1', post.submenu1);
  if (post.submenu2) form.set('submenu2', post.submenu2);
  form.set('tags', (post.tags ?? []).join(', '));
  if (post.date) form.set('date', post.date);
  if (post.youtubeUrls) form.set('youtubeUrls', JSON.stringify(post.youtubeUrls));
  if (post.cropSettings) form.set('cropSettings', JSON.stringify(post.cropSettings));
  for (const [name, value] of Object.entries(post.fields ?? {})) form.set(name, value);
  for (const file of post.files ?? [])
    form.append('files', new Blob([new Uint8Array(file.data)], { type: file.type }), file.name);
  const response = await fetch(`${baseUrl}/api/posts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 201)
    throw new Error(`create post failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as PostView;
}

/** Waits until the media worker has processed every uploaded item of the post. */
export async function waitMediaReady(
  baseUrl: string,
  token: string,
  id: number,
  timeoutMs = 60_000,
): Promise<PostView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${baseUrl}/api/posts/${id}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const post = (await response.json()) as PostView;
    if (post.mediaReady) return post;
    if (Date.now() > deadline) throw new Error(`post ${id} media not ready: ${JSON.stringify(post.media)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A real 2-second MP4 (the media tests' own fixture, made with the worker's ffmpeg). */
export { makeRealMp4 as makeMp4 } from '../../services/media/test/fixtures.js';
