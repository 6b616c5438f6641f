import { describeValidationError } from './auth.js';
import { imageSettingsSchema, SETTINGS_DEFAULTS, settingsUpdateSchema } from './settings.js';

describe('image settings rules (docs/product.md#limits-and-timings)', () => {
  it('accepts the defaults and every slider step', () => {
    expect(imageSettingsSchema.parse(SETTINGS_DEFAULTS)).toEqual(SETTINGS_DEFAULTS);
    for (let size = 400; size <= 2000; size += 100)
      expect(imageSettingsSchema.safeParse({ ...SETTINGS_DEFAULTS, image_max_size: size }).success).toBe(
        true,
      );
    for (let quality = 50; quality <= 95; quality += 5)
      expect(imageSettingsSchema.safeParse({ ...SETTINGS_DEFAULTS, image_quality: quality }).success).toBe(
        true,
      );
  });

  it.each([
    [{ image_max_size: 350 }, 'settings.image_max_size'],
    [{ image_max_size: 1250 }, 'settings.image_max_size'],
    [{ image_quality: 96 }, 'settings.image_quality'],
    [{ image_quality: null }, 'settings.image_quality'],
    [{ image_auto_optimize: 'true' }, 'settings.image_auto_optimize'],
  ])('refuses %j naming the field', (settings, field) => {
    const result = settingsUpdateSchema.safeParse({ settings });
    expect(result.success).toBe(false);
    if (!result.success) expect(describeValidationError(result.error).field).toBe(field);
  });

  it('strips unknown fields', () => {
    expect(settingsUpdateSchema.parse({ settings: { image_quality: 60, other: 1 }, x: 1 })).toEqual({
      settings: { image_quality: 60 },
    });
  });
});
