import { z } from 'zod';

/** The admin's image settings (SPEC.md §2 Settings tab, §3 Settings, §5 sliders, §9 defaults). */
export interface ImageSettings {
  image_max_size: number;
  image_quality: number;
  image_auto_optimize: boolean;
}

export const SETTINGS_DEFAULTS: ImageSettings = {
  image_max_size: 800,
  image_quality: 85,
  image_auto_optimize: true,
};

export const SETTINGS_LIMITS = {
  image_max_size: { min: 400, max: 2000, step: 100 },
  image_quality: { min: 50, max: 95, step: 5 },
} as const;

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

/** The crop preview frame (SPEC.md §9). */
export const CROP_FRAME = { width: 400, height: 128 } as const;
