import { HTTP_URL_MAX, httpUrlOrNull } from './links.js';

/** Links another server may send as an actor's page, avatar, inbox or a Note's id. */
const HOSTILE: unknown[] = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'javascript://example.com/%0Aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'DATA:image/svg+xml,<svg onload=alert(1)>',
  'vbscript:msgbox(1)',
  'VBScript:msgbox(1)',
  'file:///etc/passwd',
  'ftp://files.example/x',
  'mailto:someone@example.com',
  'blob:https://example.com/uuid',
  'about:blank',
  'ws://example.com/socket',
  '/users/alice',
  'users/alice',
  '../alice',
  '?x=1',
  '#top',
  '//evil.example/@alice',
  '\\\\evil.example/@alice',
  'https:evil.example',
  'https:/evil.example',
  'http:\\\\evil.example',
  'https://',
  ' https://social.example/@alice',
  '\thttps://social.example/@alice',
  '\nhttps://social.example/@alice',
  '\u0000https://social.example/@alice',
  '\u0001javascript:alert(1)',
  '\u00a0https://social.example/@alice',
  '\ufeffhttps://social.example/@alice',
  '\u200bhttps://social.example/@alice',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'https://social.example/@alice ',
  'https://social.example/@al\nice',
  'https://social.example/@al\u202eice',
  `https://social.example/${'a'.repeat(HTTP_URL_MAX)}`,
  '',
  null,
  undefined,
  42,
  true,
  {},
  { toString: () => 'https://social.example/@alice' },
  ['https://social.example/@alice'],
  new URL('https://social.example/@alice'),
];

describe('httpUrlOrNull', () => {
  test.each(HOSTILE.map((value) => [JSON.stringify(value) ?? String(value), value]))(
    'refuses %s',
    (_name, value) => {
      expect(httpUrlOrNull(value)).toBeNull();
    },
  );

  test('keeps absolute http and https URLs as they were sent', () => {
    for (const url of [
      'https://social.example/@alice',
      'http://social.example/users/alice',
      'HTTPS://Social.Example/@Alice',
      'https://social.example:8443/users/alice?x=1#main',
      'https://xn--bcher-kva.example/@b%C3%BCcher',
      'https://[2001:db8::1]/users/alice',
    ])
      expect(httpUrlOrNull(url)).toBe(url);
  });

  test(`takes ${HTTP_URL_MAX} characters, not one more`, () => {
    const base = 'https://social.example/';
    const longest = base + 'a'.repeat(HTTP_URL_MAX - base.length);
    expect(httpUrlOrNull(longest)).toBe(longest);
    expect(httpUrlOrNull(`${longest}a`)).toBeNull();
  });
});
