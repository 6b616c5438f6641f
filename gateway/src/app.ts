import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { YOUTUBE_EMBED_ORIGIN, YOUTUBE_THUMBNAIL_ORIGIN } from '@blog/contracts';
import { createStorage, JsonLogger, releaseMemoryWhenIdle } from '@blog/server-kit';
import helmet from 'helmet';
import type { GatewayConfig } from './config.js';
import { ViewCounter, viewBeaconMiddleware, type Clock } from './stats/view-counter.js';
import { GatewayModule } from './gateway.module.js';
import { HttpExceptionFilter } from './common/http-exception.filter.js';
import { jsonBodyMiddleware, requestIdMiddleware } from './common/http-middleware.js';
import { webAppMiddleware } from './common/web-app.js';
import { PublicCache } from './common/public-cache.js';
import { uploadsMiddleware } from './uploads/index.js';
import { FederationProxy } from './fediverse/federation-proxy.js';
import { ServiceClients } from './rpc/service-clients.js';

function trustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** Builds and starts the HTTP gateway: the only public API of the blog. */
export async function createGateway(
  config: GatewayConfig,
  env: NodeJS.ProcessEnv = process.env,
  /** Tests give their own clock (the visit statistics' day). */
  options: { clock?: Clock } = {},
): Promise<NestExpressApplication> {
  const logger = new JsonLogger('gateway', config.LOG_LEVEL);
  const storage = await createStorage(env);
  await storage.ensureReady();
  const cache = new PublicCache(config.PUBLIC_CACHE_TTL_MS, {
    staleIfErrorMs: config.PUBLIC_STALE_IF_ERROR_MS,
  });
  const app = await NestFactory.create<NestExpressApplication>(
    GatewayModule.forRoot(config, storage, cache, options.clock),
    {
      bodyParser: false,
      logger,
    },
  );
  app.set('trust proxy', trustProxy(config.TRUST_PROXY));
  app.disable('x-powered-by');
  app.use(requestIdMiddleware(logger));
  // helmet's strict defaults; the only third parties are the YouTube player and thumbnails of
  // posts. blob: lets the admin preview a picked file before it is uploaded.
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'frame-src': [YOUTUBE_EMBED_ORIGIN],
          'img-src': ["'self'", 'data:', 'blob:', YOUTUBE_THUMBNAIL_ORIGIN],
          'media-src': ["'self'", 'blob:'],
        },
      },
    }),
  );
  app.use(
    uploadsMiddleware(storage, {
      onError: (error) =>
        logger.event('error', 'serving an upload failed', {
          reason: error instanceof Error ? error.message : String(error),
        }),
    }),
  );
  if (config.CORS_ORIGINS.length > 0) {
    app.enableCors({
      origin: config.CORS_ORIGINS,
      exposedHeaders: ['X-Total-Count', 'X-Request-Id', 'Retry-After'],
    });
  }
  // Before the JSON parser (the raw body goes on, for its Digest) and the public cache (never an
  // ActivityPub answer for a page, or the reverse).
  app.use(new FederationProxy(app.get(ServiceClients), config, logger).middleware());
  app.use(jsonBodyMiddleware());
  app.use('/api/views', viewBeaconMiddleware(app.get(ViewCounter)));
  app.use(cache.middleware());
  if (config.WEB_DIST) app.use(webAppMiddleware(config.WEB_DIST));
  app.useGlobalFilters(new HttpExceptionFilter(logger));
  app.enableShutdownHooks();
  await app.listen(config.PORT, config.HOST);
  logger.event('info', 'gateway listening', { host: config.HOST, port: config.PORT });
  releaseMemoryWhenIdle();
  return app;
}
