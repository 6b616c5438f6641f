import { Inject, Injectable } from '@nestjs/common';
import {
  NOTE_PICTURES_MAX,
  noteAltsSchema,
  NoteErrors,
  noteKeepSchema,
  type NotePictureUpload,
  type NoteView,
} from '@blog/contracts';
import { JsonLogger, type ObjectStorage } from '@blog/server-kit';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { ApiError } from '../common/api-error.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { receivePostForm } from '../posts/multipart-upload.js';
import { ServiceClients, ServiceUnavailableError } from '../rpc/service-clients.js';
import { discardUploads, enqueueMedia, type UploadFollowupDeps } from '../posts/upload-followup.js';
import { STORAGE } from '../tokens.js';

/** A multipart note: its text fields, and its pictures already in storage. */
export interface ReceivedNoteForm {
  fields: Record<string, string>;
  pictures: NotePictureUpload[];
}

/** A field holding JSON (`alts`, `keepPictures`): absent is undefined, bad JSON a 400. */
function jsonField<S extends z.ZodType>(
  raw: string | undefined,
  schema: S,
  error: string,
): z.infer<S> | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ApiError(400, error);
  }
  return new ZodPipe(schema).transform(value);
}

/**
 * A note's pictures: the multipart form's files go through the post form's upload path (type
 * from the content, the same limits and refusals), images only, at most NOTE_PICTURES_MAX. On
 * any refusal, and when the posts service refuses the note, every stored file is deleted; when
 * the outcome is unknown only files no note or post references go. The stored pictures are
 * queued for the media worker at once, as a post's are.
 */
@Injectable()
export class NoteWriter {
  private readonly logger: JsonLogger;
  private readonly uploads: UploadFollowupDeps;

  constructor(
    private readonly services: ServiceClients,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.logger = new JsonLogger('gateway', config.LOG_LEVEL);
    this.uploads = { services, storage, logger: this.logger };
  }

  /** Reads the form and stores its pictures; refused (400/413) with nothing left stored. */
  async receive(req: Request, res: Response, { keep }: { keep?: boolean } = {}): Promise<ReceivedNoteForm> {
    const { form } = await receivePostForm(req, res, this.storage, {
      maxFiles: NOTE_PICTURES_MAX,
      tooManyFiles: new ApiError(400, NoteErrors.tooManyPictures),
    });
    try {
      const video = form.files.find((f) => f.type !== 'image');
      if (video) throw new ApiError(400, NoteErrors.pictureNotImage(video.name));
      const alts = jsonField(form.fields.alts, noteAltsSchema, NoteErrors.alts) ?? [];
      if (alts.length > form.files.length) throw new ApiError(400, NoteErrors.alts);
      if (!keep && form.fields.keepPictures !== undefined) throw new ApiError(400, NoteErrors.keepPictures);
      const pictures = form.files.map((file, i) => ({
        file: { ...file, type: 'image' as const },
        alt: alts[i]?.trim() ?? '',
      }));
      return { fields: form.fields, pictures };
    } catch (error) {
      await discardUploads(
        this.uploads,
        form.files.map((f) => f.key),
        false,
      );
      throw error;
    }
  }

  /** `keepPictures` of an edit's form: the ids of the pictures that stay (absent: all stay). */
  keepOf(fields: Record<string, string>): string[] | undefined {
    return jsonField(fields.keepPictures, noteKeepSchema, NoteErrors.keepPictures);
  }

  /** The form's text fields as a JSON note would send them (so one schema checks both). */
  textOf(fields: Record<string, string>, names: string[]): Record<string, string> {
    return Object.fromEntries(names.filter((n) => fields[n] !== undefined).map((n) => [n, fields[n]!]));
  }

  /**
   * Sends the write with the pictures; their files go if it is refused. Queues the note's
   * waiting pictures for the media worker after.
   */
  async write(pictures: NotePictureUpload[], send: () => Promise<NoteView>): Promise<NoteView> {
    let note: NoteView;
    try {
      note = await send();
    } catch (error) {
      const keys = pictures.map((p) => p.file.key);
      if (keys.length)
        await discardUploads(this.uploads, keys, error instanceof ServiceUnavailableError && error.delivered);
      throw error;
    }
    this.enqueue(note);
    return note;
  }

  /** A lost call only delays processing: the media service re-enqueues pending items itself. */
  private enqueue(note: NoteView): void {
    const ids = note.pictures.filter((p) => p.status === 'pending').map((p) => p.id);
    enqueueMedia(this.uploads, ids);
  }
}
