import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import {
  describeValidationError,
  ErrorText,
  RpcContracts,
  type RpcEnvelope,
  type RpcErrorBody,
  type RpcParsedRequest,
  type TypedPattern,
} from '@blog/contracts';
import { throwError, type Observable } from 'rxjs';
import type { z } from 'zod';
import { JsonLogger } from './logging.js';

/** An error a service answers with; the gateway maps `status` to the HTTP status. */
export class RpcError extends RpcException {
  constructor(readonly body: RpcErrorBody) {
    super(body);
  }
  static badRequest(error: string, field?: string) {
    return new RpcError({ status: 400, error, field });
  }
  static unauthorized(error: string) {
    return new RpcError({ status: 401, error });
  }
  static twoFactorRequired() {
    return new RpcError({ status: 401, error: ErrorText.twoFactorRequired, twoFactorRequired: true });
  }
  static forbidden(error: string) {
    return new RpcError({ status: 403, error });
  }
  static notFound(error: string) {
    return new RpcError({ status: 404, error });
  }
  static conflict(error: string) {
    return new RpcError({ status: 409, error });
  }
  static unprocessable(error: string) {
    return new RpcError({ status: 422, error });
  }
  static tooManyRequests(error: string, retryAfter: number) {
    return new RpcError({ status: 429, error, retryAfter });
  }
}

/** Validates a message body with a contracts schema; a failure is a 400 naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const { field, message } = describeValidationError(result.error);
  throw RpcError.badRequest(message, field);
}

/** A typed pattern's request, validated with the schema its contract declares (RpcContracts); a failure is a 400. */
export function parseRequest<P extends TypedPattern>(
  pattern: P,
  message: RpcEnvelope<unknown>,
): RpcParsedRequest<P> {
  return parseOrThrow(RpcContracts[pattern].request, message.data) as RpcParsedRequest<P>;
}

/** The service edge: every failure leaves as an RpcErrorBody; unknown ones as a logged 500. */
@Catch()
export class RpcErrorFilter implements RpcExceptionFilter {
  constructor(private readonly logger: JsonLogger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    if (exception instanceof RpcError) return throwError(() => exception.body);
    this.logger.error(exception instanceof Error ? exception : String(exception), 'RpcErrorFilter');
    const body: RpcErrorBody = { status: 500, error: ErrorText.internal };
    return throwError(() => body);
  }
}
