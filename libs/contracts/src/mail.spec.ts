import { describeValidationError } from './auth.js';
import { absoluteUrl, excerpt, EXCERPT_LENGTH, mainImageUrl, postLink } from './links.js';
import {
  contactSchema,
  isHoneypotFilled,
  messageListQuerySchema,
  mailTokenSchema,
  maskEmail,
  subscribeSchema,
  subscriberListQuerySchema,
} from './mail.js';

describe('excerpt (docs/product.md#limits-and-timings: 150 characters, cut at a word boundary with "...")', () => {
  const words = (n: number, word = 'word') => Array.from({ length: n }, () => word).join(' ');

  it('keeps text of 150 characters or less as it is (whitespace collapsed)', () => {
    expect(excerpt('Short post.')).toBe('Short post.');
    expect(excerpt('  Two\n\nlines\tand   spaces ')).toBe('Two lines and spaces');
    const exactly = 'x'.repeat(EXCERPT_LENGTH);
    expect(excerpt(exactly)).toBe(exactly);
    expect(excerpt('')).toBe('');
    expect(excerpt(null)).toBe('');
    expect(excerpt(undefined)).toBe('');
  });

  it('cuts longer text at the last word boundary within 150 characters and adds "..."', () => {
    // 30 five-character words: "word " repeated, 149 characters.
    const text = `${words(30)} tail`;
    const result = excerpt(text);
    expect(result.endsWith('...')).toBe(true);
    const body = result.slice(0, -3);
    expect(body.length).toBeLessThanOrEqual(EXCERPT_LENGTH);
    expect(text.startsWith(body)).toBe(true);
    expect(text[body.length]).toBe(' '); // ended on a word boundary
    expect(body).toBe(words(30));
  });

  it('never cuts a word in half', () => {
    const text = `${'a'.repeat(140)} abcdefghijklmnop and more`;
    expect(excerpt(text)).toBe(`${'a'.repeat(140)}...`);
  });

  it('keeps all 150 characters when the 151st is a space', () => {
    const head = `${'b'.repeat(100)} ${'c'.repeat(49)}`;
    expect(head).toHaveLength(150);
    expect(excerpt(`${head} rest`)).toBe(`${head}...`);
  });

  it('drops punctuation left before the ellipsis', () => {
    const text = `${'d'.repeat(120)}, ${'e'.repeat(20)}. ${'f'.repeat(30)}`;
    expect(excerpt(text)).toBe(`${'d'.repeat(120)}, ${'e'.repeat(20)}...`);
    expect(excerpt(`${'g'.repeat(140)} - ${'h'.repeat(20)}`)).toBe(`${'g'.repeat(140)}...`);
  });

  it('cuts a single word longer than 150 characters hard', () => {
    expect(excerpt('z'.repeat(400))).toBe(`${'z'.repeat(150)}...`);
  });

  it('counts characters, not UTF-16 units, and never splits an emoji', () => {
    const text = `${'🚗'.repeat(149)} and then some`;
    const result = excerpt(text);
    expect(result).toBe(`${'🚗'.repeat(149)}...`);
    expect(result.isWellFormed()).toBe(true);
    expect(excerpt('é'.repeat(200))).toBe(`${'é'.repeat(150)}...`);
  });

  it('takes another length', () => {
    expect(excerpt('one two three four', 9)).toBe('one two...');
  });
});

describe('contact form rules (docs/product.md#limits-and-timings)', () => {
  const valid = { name: 'Jane', email: 'jane@example.com', subject: 'Hello', message: 'Nice blog!' };
  const error = (body: unknown) => {
    const result = contactSchema.safeParse(body);
    return result.success ? null : describeValidationError(result.error);
  };

  it('accepts a valid message, trims it and strips unknown fields', () => {
    expect(
      contactSchema.parse({ ...valid, name: '  Jane\r\nDoe ', message: ' line 1\r\nline 2 ', extra: 1 }),
    ).toEqual({
      ...valid,
      name: 'Jane Doe',
      message: 'line 1\nline 2',
    });
  });

  it.each([
    ['name', 'name is required', { ...valid, name: undefined }],
    ['name', 'name is required', { ...valid, name: '   ' }],
    ['name', 'name must be a string', { ...valid, name: 7 }],
    ['name', 'name must be at most 100 characters', { ...valid, name: 'n'.repeat(101) }],
    ['email', 'email is required', { ...valid, email: undefined }],
    ['email', 'email is required', { ...valid, email: '' }],
    ['email', 'email must be a valid e-mail address', { ...valid, email: 'not-an-address' }],
    ['email', 'email must be a valid e-mail address', { ...valid, email: 'a@b' }],
    ['email', 'email must be at most 254 characters', { ...valid, email: `${'a'.repeat(250)}@x.io` }],
    ['subject', 'subject is required', { ...valid, subject: '' }],
    ['subject', 'subject must be at most 200 characters', { ...valid, subject: 's'.repeat(201) }],
    ['message', 'message is required', { ...valid, message: undefined }],
    ['message', 'message must be at most 5000 characters', { ...valid, message: 'm'.repeat(5001) }],
    ['website', 'website must be a string', { ...valid, website: 5 }],
  ])('names %s: %s', (field, message, body) => {
    expect(error(body)).toEqual({ field, message });
  });

  it('keeps subjects on one line (no header injection)', () => {
    expect(contactSchema.parse({ ...valid, subject: 'Hi\r\nBcc: x@evil.example' }).subject).toBe(
      'Hi Bcc: x@evil.example',
    );
  });

  it('knows a filled honeypot', () => {
    expect(isHoneypotFilled(contactSchema.parse(valid))).toBe(false);
    expect(isHoneypotFilled(contactSchema.parse({ ...valid, website: '  ' }))).toBe(false);
    expect(isHoneypotFilled(contactSchema.parse({ ...valid, website: 'http://spam.example' }))).toBe(true);
  });
});

describe('subscribe form and links', () => {
  it('requires a valid e-mail', () => {
    // Without a frequency, the weekly digest, as before readers could choose.
    expect(subscribeSchema.parse({ email: ' reader@example.org ' })).toEqual({
      email: 'reader@example.org',
      frequency: 'weekly',
    });
    const result = subscribeSchema.safeParse({});
    expect(result.success).toBe(false);
    if (!result.success) expect(describeValidationError(result.error).message).toBe('email is required');
  });

  it('accepts only 43-character base64url tokens', () => {
    expect(mailTokenSchema.safeParse('A'.repeat(43)).success).toBe(true);
    expect(mailTokenSchema.safeParse('A_-z09'.repeat(7) + 'x').success).toBe(true);
    for (const bad of ['', 'A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}/`, 5]) {
      expect(mailTokenSchema.safeParse(bad).success).toBe(false);
    }
  });

  it('pages admin lists', () => {
    expect(messageListQuerySchema.parse({})).toEqual({ page: 1, limit: 20 });
    expect(messageListQuerySchema.parse({ status: '' })).toEqual({ page: 1, limit: 20 });
    expect(subscriberListQuerySchema.parse({ page: '3', limit: '50', status: 'confirmed' })).toEqual({
      page: 3,
      limit: 50,
      status: 'confirmed',
    });
    for (const bad of [{ limit: '101' }, { page: '0' }, { page: 'x' }, { status: 'confirmed' }]) {
      expect(messageListQuerySchema.safeParse(bad).success).toBe(false);
    }
    const result = messageListQuerySchema.safeParse({ status: 'nope' });
    if (!result.success) {
      expect(describeValidationError(result.error).message).toBe('status must be one of pending, sent');
    }
  });
});

describe('absolute links for e-mails', () => {
  it('joins SITE_URL and a path with one slash', () => {
    expect(absoluteUrl('https://blog.example', '/garage/x')).toBe('https://blog.example/garage/x');
    expect(absoluteUrl('https://blog.example/', 'garage/x')).toBe('https://blog.example/garage/x');
    expect(absoluteUrl('https://blog.example/sub/', '/a')).toBe('https://blog.example/sub/a');
    expect(absoluteUrl('https://blog.example', 'https://i.ytimg.com/vi/x/hqdefault.jpg')).toBe(
      'https://i.ytimg.com/vi/x/hqdefault.jpg',
    );
  });

  it("uses the post's URL, or /post/{id} when it has none", () => {
    expect(postLink('http://localhost:3000', { id: 4, url: '/projects/shed' })).toBe(
      'http://localhost:3000/projects/shed',
    );
    expect(postLink('http://localhost:3000', { id: 4, url: null })).toBe('http://localhost:3000/post/4');
  });

  it('finds the picture of a post', () => {
    const site = 'https://blog.example';
    expect(mainImageUrl(site, { type: 'image', path: '/uploads/media/a.jpg' })).toBe(
      'https://blog.example/uploads/media/a.jpg',
    );
    expect(
      mainImageUrl(site, { type: 'video', path: '/uploads/v.mp4', thumbnailPath: '/uploads/v.jpg' }),
    ).toBe('https://blog.example/uploads/v.jpg');
    expect(mainImageUrl(site, { type: 'video', path: '/uploads/v.mp4', thumbnailPath: null })).toBeNull();
    expect(
      mainImageUrl(site, {
        type: 'youtube',
        url: 'https://youtu.be/dQw4w9WgXcQ',
        thumbnailUrl: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
      }),
    ).toBe('https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg');
    expect(mainImageUrl(site, null)).toBeNull();
  });

  it('masks an address', () => {
    expect(maskEmail('jane@example.com')).toBe('j***@example.com');
    expect(maskEmail('nonsense')).toBe('***');
  });
});
