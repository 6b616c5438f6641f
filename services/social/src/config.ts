import { envSchemas, loadConfig, requireNatsUrl, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const socialConfigSchema = z
  .object({
    ...serviceEnv,
    SOCIAL_PORT: envSchemas.port(4005),
  })
  .superRefine(requireNatsUrl);
export type SocialConfig = z.infer<typeof socialConfigSchema>;

export const SOCIAL_CONFIG = Symbol('SOCIAL_CONFIG');

export function loadSocialConfig(env: NodeJS.ProcessEnv = process.env): SocialConfig {
  return loadConfig(socialConfigSchema, env);
}
