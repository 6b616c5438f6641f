import {
  Injectable,
  Module,
  type OnApplicationShutdown,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  type Type,
  type INestMicroservice,
  type DynamicModule,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { RpcEnvelope } from '@blog/contracts';
import { createServer } from 'node:http';
import { Observable } from 'rxjs';
import { JsonLogger, requestContext } from './logging.js';
import { RpcErrorFilter } from './rpc-error.js';
import { describeTransport, serverTransport, type TransportConfig } from './transport.js';
import { releaseMemoryWhenIdle } from './idle-memory.js';

/** Runs each message handler inside the request context the gateway sent. */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const envelope = context.switchToRpc().getData<Partial<RpcEnvelope<unknown>>>();
    const requestId = typeof envelope?.requestId === 'string' ? envelope.requestId : 'internal';
    return new Observable((subscriber) =>
      requestContext.run({ requestId }, () => next.handle().subscribe(subscriber)),
    );
  }
}

/** Holds the service's module and, under NATS, its probe. */
@Module({})
class ServiceRoot {}

export interface ServiceOptions {
  name: string;
  host: string;
  port: number;
  transport: TransportConfig;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

/** Starts a Nest microservice (TCP or NATS) with the shared logger, error filter and request context. */
export async function startService(
  module: Type<unknown> | DynamicModule,
  options: ServiceOptions,
): Promise<INestMicroservice> {
  const logger = new JsonLogger(options.name, options.logLevel);
  const tcp = { host: options.host, port: options.port };
  const probe = options.transport.TRANSPORT === 'nats' ? new NatsProbe() : null;
  const root: DynamicModule = {
    module: ServiceRoot,
    imports: [module],
    providers: probe ? [{ provide: NatsProbe, useValue: probe }] : [],
  };
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(root, {
    ...serverTransport(options.transport, options.name, tcp),
    logger,
  });
  app.useGlobalFilters(new RpcErrorFilter(logger));
  app.useGlobalInterceptors(new RequestContextInterceptor());
  app.enableShutdownHooks();
  await app.listen();
  await probe?.listen(app.status, tcp);
  logger.event('info', 'service listening', describeTransport(options.transport, tcp));
  releaseMemoryWhenIdle();
  return app;
}

/**
 * Under NATS a service has no port of its own, so it answers `GET /health` on its usual one
 * for Kubernetes and compose probes: 200 while its NATS connection is up, 503 while it is not.
 * A provider, so that closing the app closes it (Nest's app object ignores assignments).
 */
class NatsProbe implements OnApplicationShutdown {
  private connected = false;
  private readonly server = createServer((_request, response) => {
    response.writeHead(this.connected ? 200 : 503, { 'content-type': 'text/plain' });
    response.end(this.connected ? 'up\n' : 'nats disconnected\n');
  });

  async listen(status: Observable<string>, at: { host: string; port: number }): Promise<void> {
    status.subscribe((state) => (this.connected = state === 'connected'));
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(at.port, at.host, resolve);
    });
  }

  onApplicationShutdown() {
    this.server.close();
    this.server.closeAllConnections();
  }
}
