import { envSchemas, loadConfig, serviceEnv } from '@blog/server-kit';
import { z } from 'zod';

export const mailConfigSchema = z.object({ ...serviceEnv, MAIL_PORT: envSchemas.port(4004) });
export type MailConfig = z.infer<typeof mailConfigSchema>;

export function loadMailConfig(env: NodeJS.ProcessEnv = process.env): MailConfig {
  return loadConfig(mailConfigSchema, env);
}
