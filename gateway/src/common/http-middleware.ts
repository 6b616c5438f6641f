import { randomUUID } from 'node:crypto';
import { ErrorText } from '@blog/contracts';
import { JsonLogger, requestContext } from '@blog/server-kit';
import express, { type NextFunction, type Request, type Response } from 'express';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Gives each request an id (kept from X-Request-Id when sane), logs it when done, and runs the rest in its context. */
export function requestIdMiddleware(logger: JsonLogger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      requestContext.run({ requestId }, () =>
        logger.event('info', 'request', {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
        }),
      );
    });
    requestContext.run({ requestId }, next);
  };
}

/** JSON bodies up to 1 MB; a parse failure answers in the API's `{ error }` shape. */
export function jsonBodyMiddleware() {
  const parse = express.json({ limit: '1mb' });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (error?: { type?: string; status?: number }) => {
      if (!error) return next();
      if (error.type === 'entity.too.large') return res.status(413).json({ error: ErrorText.bodyTooLarge });
      return res.status(error.status ?? 400).json({ error: ErrorText.malformedJson });
    });
}
