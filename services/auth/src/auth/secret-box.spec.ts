import { SecretBox } from './secret-box.js';

const JWT_SECRET = 'unit-test-jwt-secret-0123456789abcdef';
const ACCOUNT = '3f0c6a52-8a1e-4d6b-9d38-0c1f2e3a4b5c';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe('SecretBox (TOTP secrets at rest)', () => {
  const box = new SecretBox({ JWT_SECRET });

  it('seals to a prefixed value without the secret in it, with a new nonce each time, and opens it', () => {
    const sealed = box.seal(SECRET, ACCOUNT);
    expect(sealed).toMatch(/^totp1\.[\w-]{8}\.[\w-]{16}\.[\w-]+$/);
    expect(sealed).not.toContain(SECRET);
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(SecretBox.isSealed(SECRET)).toBe(false);
    expect(box.seal(SECRET, ACCOUNT)).not.toBe(sealed);
    expect(box.open(sealed, ACCOUNT)).toBe(SECRET);
  });

  it('refuses a value moved to another account or altered', () => {
    const sealed = box.seal(SECRET, ACCOUNT);
    expect(() => box.open(sealed, '00000000-0000-4000-8000-000000000000')).toThrow();
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => box.open(parts.join('.'), ACCOUNT)).toThrow();
  });

  it('says so when the key changed: another JWT_SECRET, or TOTP_ENCRYPTION_KEY set', () => {
    const sealed = box.seal(SECRET, ACCOUNT);
    const rotated = new SecretBox({ JWT_SECRET: `${JWT_SECRET}-rotated` });
    expect(() => rotated.open(sealed, ACCOUNT)).toThrow(/encrypted with another key/);
    const ownKey = new SecretBox({ JWT_SECRET, TOTP_ENCRYPTION_KEY: 'a-separate-totp-key-0123456789abcdef' });
    expect(() => ownKey.open(sealed, ACCOUNT)).toThrow(/encrypted with another key/);
    // The dedicated key alone decides: JWT_SECRET may then change freely.
    const afterJwtChange = new SecretBox({
      JWT_SECRET: `${JWT_SECRET}-rotated`,
      TOTP_ENCRYPTION_KEY: 'a-separate-totp-key-0123456789abcdef',
    });
    expect(afterJwtChange.open(ownKey.seal(SECRET, ACCOUNT), ACCOUNT)).toBe(SECRET);
  });
});
