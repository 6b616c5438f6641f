import { HttpException } from '@nestjs/common';

/** An HTTP error whose body is `{ error }`, the one error shape of the public API. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** More fields of the body (a sign-in's `twoFactorRequired`). */
    extra: Record<string, unknown> = {},
  ) {
    super({ error: message, ...extra }, status);
  }
}
