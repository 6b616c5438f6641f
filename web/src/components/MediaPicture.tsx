import type { MediaItemView } from '@blog/contracts/posts';
import { pictureSources } from '../lib/media';

interface MediaPictureProps {
  item: Pick<MediaItemView, 'path' | 'variants' | 'width' | 'height'>;
  alt: string;
  /** How wide the picture is drawn, for the browser to pick a width from the srcset. */
  sizes: string;
  /** The first image a visitor sees loads at once; the rest wait until they near the viewport. */
  eager?: boolean;
  className?: string;
}

/** A processed image: AVIF and WebP sources, the original's format as fallback, sized so nothing shifts. */
export function MediaPicture({ item, alt, sizes, eager = false, className }: MediaPictureProps) {
  const sources = pictureSources(item);
  return (
    <picture className={className}>
      {sources.avif && <source type="image/avif" srcSet={sources.avif} sizes={sizes} />}
      {sources.webp && <source type="image/webp" srcSet={sources.webp} sizes={sizes} />}
      <img
        src={sources.fallbackSrc}
        srcSet={sources.fallback || undefined}
        sizes={sources.fallback ? sizes : undefined}
        width={sources.width ?? undefined}
        height={sources.height ?? undefined}
        alt={alt}
        loading={eager ? 'eager' : 'lazy'}
        fetchPriority={eager ? 'high' : undefined}
        decoding="async"
      />
    </picture>
  );
}
