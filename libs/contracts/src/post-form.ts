import { z } from 'zod';
import {
  MEDIA_ALT_MAX,
  MEDIA_CAPTION_MAX,
  MEDIA_REF_PATTERN,
  POST_CONTENT_MAX,
  POST_STATUSES,
  POST_TITLE_MAX,
  PostErrors,
} from './posts.js';
import { sendByEmailField } from './newsletter.js';

// The post form's multipart text fields, each parsed and checked with the field named in its error.

const jsonField = <S extends z.ZodType>(field: string, schema: S) =>
  z
    .string()
    .optional()
    .transform((text, ctx): z.infer<S> | undefined => {
      if (text === undefined || text.trim() === '') return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${field} must be valid JSON` });
        return z.NEVER;
      }
      const result = schema.safeParse(value);
      if (!result.success) {
        const issue = result.error.issues[0]!;
        const where = issue.path.length ? `${field}[${issue.path.join('].[')}]` : field;
        ctx.addIssue({ code: 'custom', message: `${where}: ${issue.message}` });
        return z.NEVER;
      }
      return result.data;
    });

const finite = z.number().finite();
const order = z.coerce.number().finite().optional();
const mediaType = z.enum(['image', 'video', 'youtube']);

const alt = z
  .string()
  .trim()
  .max(MEDIA_ALT_MAX, `alt must be at most ${MEDIA_ALT_MAX} characters`)
  .optional();
const caption = z
  .string()
  .trim()
  .max(MEDIA_CAPTION_MAX, `caption must be at most ${MEDIA_CAPTION_MAX} characters`)
  .optional();

export const existingFileSchema = z.object({
  path: z.string().optional(),
  type: mediaType.optional(),
  name: z.string().optional(),
  url: z.string().optional(),
  title: z.string().optional(),
  order,
  alt,
  caption,
});

export const unifiedMediaSchema = z.object({
  type: mediaType,
  order,
  path: z.string().optional(),
  url: z.string().optional(),
  name: z.string().optional(),
  title: z.string().optional(),
  /** Which uploaded file (index in upload order) a new item is. */
  fileIndex: z.number().int().min(0).optional(),
  isNew: z.boolean().optional(),
  alt,
  caption,
  /** A new item's reference in the text (`![alt](media:REF)`), replaced by the item's id on save. */
  ref: z.string().regex(MEDIA_REF_PATTERN, 'ref must be 1 to 40 letters, digits, - or _').optional(),
});
export type UnifiedMediaInput = z.infer<typeof unifiedMediaSchema>;

const youtubeUrlEntry = z.union([z.string(), z.object({ url: z.string(), title: z.string().optional() })]);

/** The post form's text fields (all strings in multipart) parsed into values; rules from docs/product.md#limits-and-timings. */
export const postFormSchema = z.object({
  title: z
    .string({ error: PostErrors.titleRequired })
    .trim()
    .min(1, PostErrors.titleRequired)
    .max(POST_TITLE_MAX, `title must be at most ${POST_TITLE_MAX} characters`),
  content: z
    .string()
    .max(POST_CONTENT_MAX, `content must be at most ${POST_CONTENT_MAX} characters`)
    // Browsers send form text with CRLF line ends (the multipart encoding): stored as LF.
    .transform((text) => text.replace(/\r\n?/g, '\n'))
    .default(''),
  date: z
    .string()
    .trim()
    .optional()
    .refine((v) => !v || !Number.isNaN(Date.parse(v)), 'date must be a date and time'),
  category: z.string().optional(),
  submenu1: z.string().optional(),
  submenu2: z.string().optional(),
  tags: z.string().optional(),
  status: z
    .enum(POST_STATUSES, { error: `status must be one of ${POST_STATUSES.join(', ')}` })
    .default('published'),
  imageSettings: jsonField('imageSettings', z.record(z.string(), z.unknown())),
  cropSettings: jsonField(
    'cropSettings',
    z.object({ x: finite.default(0), y: finite.default(0), scale: finite.positive().max(10).default(1) }),
  ),
  existingFiles: jsonField('existingFiles', z.array(existingFileSchema).max(200)),
  mainImageIndex: z
    .string()
    .optional()
    .refine((v) => !v || /^\d+$/.test(v.trim()), 'mainImageIndex must be a whole number')
    .transform((v) => (v && v.trim() ? Number(v) : undefined)),
  youtubeUrls: jsonField('youtubeUrls', z.array(youtubeUrlEntry).max(100)),
  unifiedMedia: jsonField('unifiedMedia', z.array(unifiedMediaSchema).max(200)),
  /** Unset: a new post takes the Site setting (newsletter.sendByDefault), an edit keeps the post's. */
  sendByEmail: sendByEmailField,
});
export type PostForm = z.infer<typeof postFormSchema>;
