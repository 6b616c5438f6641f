import type { MediaStatus, MediaType, MediaVariant } from '@blog/contracts';
import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Post } from './post.entity.js';

/** One entry of a post's ordered media list: an uploaded image or video, or a YouTube link. */
@Entity({ name: 'media_items' })
export class MediaItem {
  @PrimaryColumn('uuid')
  id!: string;

  /** The post it belongs to; null for a note's picture (`noteId`): exactly one of the two is set. */
  @Column({ name: 'post_id', type: 'int', nullable: true })
  postId!: number | null;

  @Column({ name: 'note_id', type: 'int', nullable: true })
  noteId!: number | null;

  @ManyToOne(() => Post, (post) => post.media, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'post_id' })
  post?: Post;

  @Column({ type: 'int' })
  position!: number;

  @Column({ type: 'varchar', length: 16 })
  type!: MediaType;

  @Column({ type: 'varchar', length: 16, default: 'ready' })
  status!: MediaStatus;

  /** Storage key of the served file (images and videos): the processed one, set when ready. */
  @Column({ name: 'storage_key', type: 'text', nullable: true })
  storageKey!: string | null;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ name: 'mime_type', type: 'varchar', length: 100, nullable: true })
  mimeType!: string | null;

  @Column({ name: 'size_bytes', type: 'bigint', nullable: true })
  sizeBytes!: string | null;

  @Column({ name: 'youtube_url', type: 'text', nullable: true })
  youtubeUrl!: string | null;

  @Column({ name: 'youtube_id', type: 'varchar', length: 32, nullable: true })
  youtubeId!: string | null;

  @Column({ name: 'is_shorts', type: 'boolean', default: false })
  isShorts!: boolean;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  /** What a screen reader says for the image (or video). */
  @Column({ type: 'varchar', length: 300, nullable: true })
  alt!: string | null;

  /** The line shown under the picture. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  caption!: string | null;

  @Column({ name: 'crop_x', type: 'double precision', nullable: true })
  cropX!: number | null;

  @Column({ name: 'crop_y', type: 'double precision', nullable: true })
  cropY!: number | null;

  @Column({ name: 'crop_scale', type: 'double precision', nullable: true })
  cropScale!: number | null;

  @Column({ name: 'cropped_preview_key', type: 'text', nullable: true })
  croppedPreviewKey!: string | null;

  @Column({ name: 'thumbnail_key', type: 'text', nullable: true })
  thumbnailKey!: string | null;

  @Column({ type: 'int', nullable: true })
  width!: number | null;

  @Column({ type: 'int', nullable: true })
  height!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** The owner's uploaded file, under `private/` (never served); kept until the item or post goes. */
  @Column({ name: 'original_key', type: 'text', nullable: true })
  originalKey!: string | null;

  /** srcset files made by the media worker. */
  @Column({ type: 'jsonb', default: () => "'[]'::jsonb" })
  variants!: MediaVariant[];

  @Column({ name: 'duration_seconds', type: 'double precision', nullable: true })
  durationSeconds!: number | null;

  @Column({ name: 'status_changed_at', type: 'timestamptz', default: () => 'now()' })
  statusChangedAt!: Date;

  /** A ready item to render again (its crop changed); it stays served until the new result. */
  @Column({ type: 'boolean', default: false })
  reprocess!: boolean;

  /** Processing runs since the item last ended ready or failed (the worker gives up at MEDIA_JOB_ATTEMPTS). */
  @Column({ name: 'processing_attempts', type: 'int', default: 0 })
  processingAttempts!: number;
}
