import { loginSchema, registerSchema, describeValidationError } from './auth.js';

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
