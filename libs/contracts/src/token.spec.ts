import { readTokenExpiry, isTokenValid } from './token.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const tokenWith = (payload: unknown) => `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(payload)}.sig`;

describe('token expiry', () => {
  it('reads exp in seconds', () => {
    expect(readTokenExpiry(tokenWith({ exp: 1_900_000_000 }))).toBe(1_900_000_000);
  });

  it.each([
    ['missing token', null],
    ['empty token', ''],
    ['two parts', 'a.b'],
    ['payload not base64 JSON', 'a.%%%.c'],
    ['payload not an object', tokenWith(42)],
    ['no exp', tokenWith({ sub: 'x' })],
    ['exp not a number', tokenWith({ exp: '1900000000' })],
  ])('treats %s as invalid', (_label, token) => {
    expect(readTokenExpiry(token as string | null)).toBeNull();
    expect(isTokenValid(token as string | null)).toBe(false);
  });

  it('compares exp with the current time in seconds', () => {
    const token = tokenWith({ exp: 1000 });
    expect(isTokenValid(token, 999)).toBe(true);
    expect(isTokenValid(token, 1000)).toBe(false);
    expect(isTokenValid(token, 1001)).toBe(false);
  });

  it('decodes base64url payloads with - and _ characters', () => {
    const token = tokenWith({ exp: 2_000_000_000, username: '??>>~~' });
    expect(readTokenExpiry(token)).toBe(2_000_000_000);
  });
});
