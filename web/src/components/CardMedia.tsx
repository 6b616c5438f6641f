import type { PostView } from '@blog/contracts/posts';
import { youtubeSources } from '../lib/media';
import { MediaPicture } from './MediaPicture';

/** The crop preview's frame (docs/product.md#limits-and-timings). */
const CROP_WIDTH = 400;
const CROP_HEIGHT = 128;

/**
 * A card's main media: the 400x128 crop preview when the main image has one, else the
 * picture; a video's poster; a YouTube thumbnail. Nothing for a post without media.
 */
export function CardMedia({ post, eager }: { post: PostView; eager: boolean }) {
  const main = post.media[0];
  if (!main) return null;
  const loading = eager ? 'eager' : 'lazy';
  if (main.type === 'image' && main.croppedPreviewPath) {
    return (
      <img
        className="card-media card-media-crop"
        src={main.croppedPreviewPath}
        width={CROP_WIDTH}
        height={CROP_HEIGHT}
        alt=""
        loading={loading}
        decoding="async"
      />
    );
  }
  if (main.type === 'image') {
    return (
      <MediaPicture
        className="card-media"
        item={main}
        alt=""
        sizes="(max-width: 640px) 100vw, 240px"
        eager={eager}
      />
    );
  }
  if (main.type === 'video' && main.thumbnailPath) {
    return (
      <span className="card-media card-media-video">
        <img src={main.thumbnailPath} alt="" loading={loading} decoding="async" width={640} height={360} />
        <span className="play-badge" aria-hidden="true">
          ▶
        </span>
      </span>
    );
  }
  const youtube = main.type === 'youtube' ? youtubeSources(main) : null;
  if (youtube) {
    return (
      <span className="card-media card-media-video">
        <img src={youtube.thumbnailUrl} alt="" loading={loading} decoding="async" width={480} height={360} />
        <span className="play-badge" aria-hidden="true">
          ▶
        </span>
      </span>
    );
  }
  return null;
}
