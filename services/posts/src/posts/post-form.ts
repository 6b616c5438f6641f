import {
  parseTags,
  PlacementError,
  postFormSchema,
  unifiedMediaSchema,
  type UnifiedMediaInput,
  describeValidationError,
  resolvePlacement,
  type Placement,
  type PostForm,
  type SiteConfig,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { z } from 'zod';

export interface ParsedPostForm {
  form: PostForm;
  placement: Placement;
  tags: string[];
  /** The author's date; now when the form has none. */
  createdAt: Date;
}

/**
 * A post as code hands it over (an import), not as a form sends it: typed values, checked
 * against the same rules as the form's fields.
 */
export interface PostInput {
  title: string;
  content: string;
  /** The place's labels: category and submenu1, and submenu2 where the tree has a third level. */
  category: string;
  submenu1: string;
  submenu2?: string;
  tags: string[];
  status: 'draft' | 'published';
  /** The author's date; now when absent. */
  date?: Date;
  crop?: { x: number; y: number; scale: number };
  /** The post's media in order, new files by their index in the files handed over with it. */
  media: UnifiedMediaInput[];
}

const postInputSchema = postFormSchema
  .pick({
    title: true,
    content: true,
    date: true,
    category: true,
    submenu1: true,
    submenu2: true,
    status: true,
  })
  .extend({
    cropSettings: z.object({ x: z.number(), y: z.number(), scale: z.number().positive().max(10) }).optional(),
    unifiedMedia: z.array(unifiedMediaSchema).max(200),
  });

/** Reads the multipart text fields against the shared rules; any problem is a 400 naming the field. */
export function parsePostForm(fields: Record<string, string>, site: SiteConfig): ParsedPostForm {
  const result = postFormSchema.safeParse(fields);
  if (!result.success) {
    const { field, message } = describeValidationError(result.error);
    throw RpcError.badRequest(message, field);
  }
  return placed(result.data, parseTags(result.data.tags ?? ''), site);
}

/** A typed post against the form's rules (lengths, status, media, place); a problem is a 400 naming the field. */
export function parsePostInput(post: PostInput, site: SiteConfig): ParsedPostForm {
  const result = postInputSchema.safeParse({
    title: post.title,
    content: post.content,
    date: post.date?.toISOString(),
    category: post.category,
    submenu1: post.submenu1,
    submenu2: post.submenu2,
    status: post.status,
    cropSettings: post.crop,
    unifiedMedia: post.media,
  });
  if (!result.success) {
    const { field, message } = describeValidationError(result.error);
    throw RpcError.badRequest(message, field);
  }
  const form: PostForm = {
    ...result.data,
    cropSettings: result.data.cropSettings,
    tags: undefined,
    imageSettings: undefined,
    existingFiles: undefined,
    mainImageIndex: undefined,
    youtubeUrls: undefined,
    // Imported writing is never e-mailed.
    sendByEmail: undefined,
  };
  return placed(form, parseTags(post.tags), site);
}

function placed(form: PostForm, tags: string[], site: SiteConfig): ParsedPostForm {
  let placement: Placement;
  try {
    placement = resolvePlacement(site, form);
  } catch (error) {
    if (error instanceof PlacementError) throw RpcError.badRequest(error.message, error.field);
    throw error;
  }
  // A date without an offset is the author's local time; the server reads it in its own zone (TZ).
  const createdAt = form.date ? new Date(form.date) : new Date();
  return { form, placement, tags, createdAt };
}
