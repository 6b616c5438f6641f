import { SETTINGS_DEFAULTS } from '@blog/contracts';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

describe('GET and PUT /api/settings (admin image settings)', () => {
  let stack: TestStack;
  let admin: string;

  beforeAll(async () => {
    stack = await startTestStack({}, ['mail']);
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('starts with the defaults of docs/product.md#limits-and-timings', async () => {
    const response = await api(stack, '/api/settings', { token: admin });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ image_max_size: 800, image_quality: 85, image_auto_optimize: true });
    expect(response.json).toEqual(SETTINGS_DEFAULTS);
  });

  it('saves new settings and reads them back', async () => {
    const settings = { image_max_size: 1200, image_quality: 70, image_auto_optimize: false };
    const saved = await api(stack, '/api/settings', { method: 'PUT', token: admin, body: { settings } });
    expect(saved.status).toBe(200);
    expect(saved.json).toEqual(settings);
    expect((await api(stack, '/api/settings', { token: admin })).json).toEqual(settings);
  });

  it('keeps fields that a PUT leaves out', async () => {
    const saved = await api(stack, '/api/settings', {
      method: 'PUT',
      token: admin,
      body: { settings: { image_quality: 95 } },
    });
    expect(saved.json).toEqual({ image_max_size: 1200, image_quality: 95, image_auto_optimize: false });
  });

  it.each([
    [{ image_max_size: 300 }, 'image_max_size'],
    [{ image_max_size: 2100 }, 'image_max_size'],
    [{ image_max_size: 850 }, 'image_max_size'],
    [{ image_max_size: '800' }, 'image_max_size'],
    [{ image_quality: 45 }, 'image_quality'],
    [{ image_quality: 100 }, 'image_quality'],
    [{ image_quality: 87 }, 'image_quality'],
    [{ image_quality: 80.5 }, 'image_quality'],
    [{ image_auto_optimize: 'yes' }, 'image_auto_optimize'],
    [{ image_auto_optimize: 1 }, 'image_auto_optimize'],
  ])('refuses %j with 400 naming the field', async (settings, field) => {
    const response = await api(stack, '/api/settings', { method: 'PUT', token: admin, body: { settings } });
    expect(response.status).toBe(400);
    expect(response.json.error).toEqual(expect.stringContaining(field));
  });

  it('refuses a body without a settings object', async () => {
    for (const body of [{}, { settings: 5 }, { image_quality: 80 }]) {
      const response = await api(stack, '/api/settings', { method: 'PUT', token: admin, body });
      expect(response.status).toBe(400);
      expect(response.json.error).toEqual(expect.stringContaining('settings'));
    }
    expect((await api(stack, '/api/settings', { token: admin })).json).toEqual({
      image_max_size: 1200,
      image_quality: 95,
      image_auto_optimize: false,
    });
  });

  it('is for admins only', async () => {
    expect((await api(stack, '/api/settings')).status).toBe(401);
    const put = await api(stack, '/api/settings', {
      method: 'PUT',
      body: { settings: { image_quality: 50 } },
    });
    expect(put.status).toBe(401);
    await api(stack, '/api/auth/register', { body: { username: 'reader', password: 'reader-password' } });
    const reader = await loginAs(stack, 'reader', 'reader-password');
    expect((await api(stack, '/api/settings', { token: reader })).status).toBe(403);
    expect(
      (await api(stack, '/api/settings', { method: 'PUT', token: reader, body: { settings: {} } })).status,
    ).toBe(403);
  });
});
