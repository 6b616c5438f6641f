import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
  type Type,
  type INestMicroservice,
  type DynamicModule,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import type { RpcEnvelope } from '@blog/contracts';
import { Observable } from 'rxjs';
import { JsonLogger, requestContext } from './logging.js';
import { RpcErrorFilter } from './rpc-error.js';

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

export interface ServiceOptions {
  name: string;
  host: string;
  port: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

/** Starts a Nest microservice over TCP with the shared logger, error filter and request context. */
export async function startService(
  module: Type<unknown> | DynamicModule,
  options: ServiceOptions,
): Promise<INestMicroservice> {
  const logger = new JsonLogger(options.name, options.logLevel);
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    transport: Transport.TCP,
    options: { host: options.host, port: options.port },
    logger,
  });
  app.useGlobalFilters(new RpcErrorFilter(logger));
  app.useGlobalInterceptors(new RequestContextInterceptor());
  app.enableShutdownHooks();
  await app.listen();
  logger.event('info', 'service listening', { host: options.host, port: options.port });
  return app;
}
