import { SETTINGS_DEFAULTS } from '@blog/contracts';
import type { IdempotencyLedger } from '@blog/server-kit';
import { SettingsService } from '../src/settings/settings.service.js';
import { InMemorySettingsRepository } from './support/in-memory-settings.repository.js';

/** The image settings' rules against an in-memory repository: defaults until a change, partial changes merge. */
describe('image settings rules', () => {
  let store: InMemorySettingsRepository;
  let settings: SettingsService;

  beforeEach(() => {
    store = new InMemorySettingsRepository();
    const ledger = {
      write: async (_request: unknown, work: (manager: never) => Promise<unknown>) => ({
        answer: await work(undefined as never),
        replayed: false,
      }),
    };
    settings = new SettingsService(store, ledger as unknown as IdempotencyLedger);
  });

  it('answers the defaults before the admin changed anything, and stores nothing for a read', async () => {
    expect(await settings.get()).toEqual(SETTINGS_DEFAULTS);
    expect(store.row).toBeNull();
  });

  it('a change of one field keeps the defaults of the others', async () => {
    const { answer } = await settings.update({ settings: { image_quality: 55 } });
    expect(answer).toEqual({ ...SETTINGS_DEFAULTS, image_quality: 55 });
    expect(await settings.get()).toEqual({ ...SETTINGS_DEFAULTS, image_quality: 55 });
  });

  it('a later change keeps the fields an earlier one stored', async () => {
    await settings.update({ settings: { image_quality: 55, image_max_size: 1200 } });
    const { answer } = await settings.update({ settings: { image_auto_optimize: false } });
    expect(answer).toEqual({ image_quality: 55, image_max_size: 1200, image_auto_optimize: false });
  });

  it('the defaults answered are a copy: changing one does not change the next answer', async () => {
    const first = await settings.get();
    first.image_quality = 1;
    expect(await settings.get()).toEqual(SETTINGS_DEFAULTS);
  });
});
