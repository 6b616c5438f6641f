import { z } from 'zod';

import { SETTINGS_LIMITS } from './image-settings.js';

// The plain values live apart so the browser gets them without the schema library.
export { CROP_FRAME, SETTINGS_DEFAULTS, SETTINGS_LIMITS, type ImageSettings } from './image-settings.js';

function slider(field: keyof typeof SETTINGS_LIMITS) {
  const { min, max, step } = SETTINGS_LIMITS[field];
  const message = `${field} must be a number from ${min} to ${max} in steps of ${step}`;
  return z
    .number({ error: message })
    .refine((n) => Number.isInteger(n) && n >= min && n <= max && (n - min) % step === 0, { message });
}

/** One settings object: every field required, nothing else kept. */
export const imageSettingsSchema = z.object({
  image_max_size: slider('image_max_size'),
  image_quality: slider('image_quality'),
  image_auto_optimize: z.boolean({ error: 'image_auto_optimize must be true or false' }),
});

/** PUT /api/settings body: `{settings: {...}}`; fields left out keep their stored value. */
export const settingsUpdateSchema = z.object(
  {
    settings: imageSettingsSchema.partial({
      image_max_size: true,
      image_quality: true,
      image_auto_optimize: true,
    }),
  },
  { error: 'Expected a JSON object' },
);
export type SettingsUpdate = z.infer<typeof settingsUpdateSchema>;
