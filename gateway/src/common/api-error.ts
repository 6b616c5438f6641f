import { HttpException } from '@nestjs/common';

/** An HTTP error whose body is `{ error }`, the one error shape of the public API. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super({ error: message }, status);
  }
}
