import {
  loginSchema,
  registerSchema,
  describeValidationError,
  twoFactorCodeSchema,
  twoFactorConfirmSchema,
} from './auth.js';

const registerError = (body: unknown) => {
  const result = registerSchema.safeParse(body);
  return result.success ? null : describeValidationError(result.error);
};

describe('register rules', () => {
  it('accepts a valid username and password and strips unknown fields', () => {
    const result = registerSchema.parse({
      username: 'jane.doe_1-x',
      password: 'correct horse',
      role: 'admin',
    });
    expect(result).toEqual({ username: 'jane.doe_1-x', password: 'correct horse' });
  });

  it.each([
    [{ password: 'longenough' }, 'username', 'username is required'],
    [{ username: 'jane' }, 'password', 'password is required'],
    [{ username: '   ', password: 'longenough' }, 'username', 'username is required'],
    [{ username: 42, password: 'longenough' }, 'username', 'username must be a string'],
    [{ username: 'ab', password: 'longenough' }, 'username', 'username must be 3-32 characters'],
    [{ username: 'a'.repeat(33), password: 'longenough' }, 'username', 'username must be 3-32 characters'],
    [
      { username: 'jane doe', password: 'longenough' },
      'username',
      'username may contain only letters, digits, ".", "_" and "-"',
    ],
    [{ username: 'jane', password: 'short' }, 'password', 'password must be 8-128 characters'],
    [{ username: 'jane', password: 'x'.repeat(129) }, 'password', 'password must be 8-128 characters'],
    [{ username: 'jane', password: ['x'] }, 'password', 'password must be a string'],
  ])('rejects %j naming %s', (body, field, message) => {
    expect(registerError(body)).toEqual({ field, message });
  });

  it('accepts the length limits exactly', () => {
    expect(registerError({ username: 'abc', password: 'x'.repeat(8) })).toBeNull();
    expect(registerError({ username: 'a'.repeat(32), password: 'x'.repeat(128) })).toBeNull();
  });
});

describe('login rules', () => {
  it('requires both fields but not the register rules', () => {
    expect(loginSchema.safeParse({ username: 'x', password: 'y' }).success).toBe(true);
    const missing = loginSchema.safeParse({ username: 'x' });
    expect(missing.success).toBe(false);
    if (!missing.success) expect(describeValidationError(missing.error).message).toBe('password is required');
  });
});

describe('two-factor codes', () => {
  const code = (value: unknown) => twoFactorCodeSchema.safeParse(value);

  it('reads six digits, a recovery code (16 base32 characters) and the older 10-character form, however spaced', () => {
    expect(code(' 123 456 ').data).toBe('123456');
    expect(code('ABCD EFGH-2345 67QR').data).toBe('abcd-efgh-2345-67qr');
    expect(code('abcdefgh234567qr').data).toBe('abcd-efgh-2345-67qr');
    expect(code('A1B2C-3D4E5').data).toBe('a1b2c-3d4e5');
  });

  it.each(['12345', '1234567', 'abcd-efgh-2345-67q', 'abcd-efgh-2345-67q1', 'abcd-efgh-2345-67qr-a', ''])(
    'refuses %j',
    (value) => expect(code(value).success).toBe(false),
  );

  it('turning two-factor on or off asks for the password beside the code', () => {
    const missing = twoFactorConfirmSchema.safeParse({ code: '123456' });
    expect(missing.success).toBe(false);
    if (!missing.success)
      expect(describeValidationError(missing.error)).toEqual({
        field: 'password',
        message: 'password is required',
      });
    expect(twoFactorConfirmSchema.parse({ password: 'pw', code: '123 456' })).toEqual({
      password: 'pw',
      code: '123456',
    });
  });
});
