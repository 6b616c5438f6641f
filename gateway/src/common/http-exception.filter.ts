import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ErrorText } from '@blog/contracts';
import { JsonLogger } from '@blog/server-kit';
import type { Response } from 'express';
import { ApiError } from './api-error.js';

const STATUS_TEXT: Record<number, string> = { 404: ErrorText.notFound, 413: ErrorText.bodyTooLarge };

/** Every failure leaves the gateway as JSON `{ error }`; unexpected ones are logged and become 500. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: JsonLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (exception instanceof ApiError) {
      for (const [name, value] of Object.entries(exception.headers)) response.setHeader(name, value);
      response.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      response.status(status).json({ error: STATUS_TEXT[status] ?? exception.message });
      return;
    }
    this.logger.error(exception instanceof Error ? exception : String(exception), 'HttpExceptionFilter');
    response.status(500).json({ error: ErrorText.internal });
  }
}
