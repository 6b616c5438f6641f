import {
  parseTags,
  PlacementError,
  postFormSchema,
  describeValidationError,
  resolvePlacement,
  type Placement,
  type PostForm,
  type SiteConfig,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';

export interface ParsedPostForm {
  form: PostForm;
  placement: Placement;
  tags: string[];
  /** The author's date; now when the form has none. */
  createdAt: Date;
}

/** Reads the multipart text fields against the shared rules; any problem is a 400 naming the field. */
export function parsePostForm(fields: Record<string, string>, site: SiteConfig): ParsedPostForm {
  const result = postFormSchema.safeParse(fields);
  if (!result.success) {
    const { field, message } = describeValidationError(result.error);
    throw RpcError.badRequest(message, field);
  }
  const form = result.data;
  let placement: Placement;
  try {
    placement = resolvePlacement(site, form);
  } catch (error) {
    if (error instanceof PlacementError) throw RpcError.badRequest(error.message, error.field);
    throw error;
  }
  // A date without an offset is the author's local time; the server reads it in its own zone (TZ).
  const createdAt = form.date ? new Date(form.date) : new Date();
  return { form, placement, tags: parseTags(form.tags ?? ''), createdAt };
}
