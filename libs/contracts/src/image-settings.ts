/** Image settings values without a schema library, for the browser (docs/product.md#what-a-post-holds, #limits-and-timings). */

/** The admin's image settings (docs/product.md#the-dashboard, docs/api.md#get-apisettings, #put-apisettings, docs/product.md#limits-and-timings). */
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

/** The crop preview frame (docs/product.md#limits-and-timings). */
export const CROP_FRAME = { width: 400, height: 128 } as const;
