import { envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const mediaConfigSchema = z.object({ ...serviceEnv, MEDIA_PORT: envSchemas.port(4003) });
export type MediaConfig = z.infer<typeof mediaConfigSchema>;

export function loadMediaConfig(env: NodeJS.ProcessEnv = process.env): MediaConfig {
  return loadConfig(mediaConfigSchema, env);
}
