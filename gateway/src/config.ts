import { envSchemas, loadConfig, requireNatsUrl, transportEnv } from '@blog/server-kit';
import { z } from 'zod';

const optionalList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

export const gatewayConfigSchema = z
  .object({
    PORT: envSchemas.port(3000),
    HOST: envSchemas.host('0.0.0.0'),
    JWT_SECRET: envSchemas.jwtSecret,
    ...transportEnv,
    /** Where each service listens under TRANSPORT=tcp. */
    AUTH_HOST: envSchemas.host('127.0.0.1'),
    AUTH_PORT: envSchemas.port(4001),
    POSTS_HOST: envSchemas.host('127.0.0.1'),
    POSTS_PORT: envSchemas.port(4002),
    MEDIA_HOST: envSchemas.host('127.0.0.1'),
    MEDIA_PORT: envSchemas.port(4003),
    MAIL_HOST: envSchemas.host('127.0.0.1'),
    MAIL_PORT: envSchemas.port(4004),
    SOCIAL_HOST: envSchemas.host('127.0.0.1'),
    SOCIAL_PORT: envSchemas.port(4005),
    /** How long a service may take to answer before the gateway says 503. */
    RPC_TIMEOUT_MS: envSchemas.positiveInt(5000),
    HEALTH_TIMEOUT_MS: envSchemas.positiveInt(1500),
    /** A read whose transport failed is tried again once the NATS connection is back, waiting at most this. */
    READ_RETRY_WAIT_MS: envSchemas.positiveInt(3000),
    /** How long a public GET answer may be served from the gateway's memory (0 turns the cache off). */
    /** How long a replica keeps the site config before asking the posts service again. */
    SITE_CACHE_MS: z.coerce.number().int().min(0).default(500),
    /** How long a replica trusts what it knows of an account's sessions (revocation reaches every replica within it). */
    SESSION_CHECK_TTL_MS: z.coerce.number().int().min(0).default(1000),
    PUBLIC_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1000),
    /** Counted page views are handed to the posts service at most this often (one write per interval per replica). */
    VIEW_FLUSH_MS: z.coerce.number().int().min(10).default(1000),
    /** How old a public answer may be that is served when the service fails (stale-if-error). */
    PUBLIC_STALE_IF_ERROR_MS: z.coerce.number().int().min(0).default(60_000),
    /** Origins allowed to call the API from another site; none by default. */
    CORS_ORIGINS: optionalList,
    /** Express "trust proxy": which hops may set X-Forwarded-For (the nginx in front). */
    TRUST_PROXY: z.string().default('loopback'),
    /** The built web app to serve (embedded mode); unset when nginx serves it. */
    WEB_DIST: z.string().optional(),
    /**
     * The built app shell (web/dist/index.html) the gateway fills with each page's title and
     * share tags; WEB_DIST/index.html in the embedded mode. Without either, no pages are served.
     */
    APP_SHELL: z.string().optional(),
    /**
     * The web's page renderer (web/dist-ssr/entry-server.js); by default the one beside the
     * app shell's web/dist when it exists. Public pages are then rendered on the server.
     */
    SSR_ENTRY: z.string().optional(),
    /** The public address of the site (canonical links, feeds); the request's own otherwise. */
    SITE_URL: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
        .transform((url) => url.replace(/\/+$/, ''))
        .optional(),
    ),
    LOG_LEVEL: envSchemas.logLevel,
  })
  .superRefine(requireNatsUrl);

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}
