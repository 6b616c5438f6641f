import { type PipeTransform } from '@nestjs/common';
import { describeValidationError } from '@blog/contracts';
import type { z } from 'zod';
import { ApiError } from './api-error.js';

/** Validates a body or query with a contracts schema: unknown fields stripped, a failure is a 400 naming the field. */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    const result = this.schema.safeParse(value ?? {});
    if (result.success) return result.data;
    throw new ApiError(400, describeValidationError(result.error).message);
  }
}
