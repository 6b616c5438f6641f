import type { PostStatus } from '@blog/contracts';
import { Column, Entity, OneToMany, PrimaryGeneratedColumn, VirtualColumn } from 'typeorm';
import { MediaItem } from './media-item.entity.js';

@Entity({ name: 'posts' })
export class Post {
  @PrimaryGeneratedColumn('identity', { generatedIdentity: 'ALWAYS' })
  id!: number;

  @Column({ type: 'varchar', length: 200 })
  title!: string;

  /** The Markdown source; selected only where a view shows it (single posts, the admin's lists). */
  @Column({ type: 'text', default: '', select: false })
  content!: string;

  /** `content` rendered on save (sanitised); selected only where a view shows it (not list cards). */
  @Column({ name: 'content_html', type: 'text', default: '', select: false })
  contentHtml!: string;

  /** `content` as plain text: search indexes it; never sent (the excerpt is). */
  @Column({ name: 'content_text', type: 'text', default: '', select: false })
  contentText!: string;

  @Column({ type: 'varchar', length: 400, default: '' })
  excerpt!: string;

  @Column({ name: 'reading_minutes', type: 'int', default: 0 })
  readingMinutes!: number;

  /** draft or published; a published post dated ahead is scheduled (decided in the queries). */
  @Column({ type: 'varchar', length: 16, default: 'published' })
  status!: PostStatus;

  @Column({ type: 'varchar', length: 120 })
  slug!: string;

  /** Canonical labels from the site config's category tree. */
  @Column({ type: 'varchar', length: 80 })
  category!: string;

  @Column({ type: 'varchar', length: 80 })
  submenu1!: string;

  @Column({ type: 'varchar', length: 80, nullable: true })
  submenu2!: string | null;

  /** The id of the tree node the post sits in (its deepest level): kept when labels or segments change. */
  @Column({ name: 'place_id', type: 'varchar', length: 40, nullable: true })
  placeId!: string | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  /** Its identity in the blog it was imported from ("wxr:<guid>", "ghost:<id>", "blog:<id>"): a re-import updates it. */
  @Column({ name: 'source_id', type: 'varchar', length: 300, nullable: true, select: false })
  sourceId!: string | null;

  /** To be e-mailed to the each-post subscribers when published (once: posts.newsletter_events). */
  @Column({ name: 'send_by_email', type: 'boolean', default: false })
  sendByEmail!: boolean;

  /** Chosen by the author (the post's date), not the insert time. */
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /**
   * Whether `createdAt` is now or earlier by the database's clock (`now()`), read with the row:
   * a scheduled post is told apart by the same clock the lists filter with, never the Node
   * process's. Absent on a post not read from the database (then visibilityOf asks Date.now()).
   */
  @VirtualColumn({ type: 'boolean', query: (alias) => `SELECT ${alias}.created_at <= now()` })
  datedByNow?: boolean;

  @OneToMany(() => MediaItem, (item) => item.post)
  media?: MediaItem[];
}
