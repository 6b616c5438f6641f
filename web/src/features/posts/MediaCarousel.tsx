import type { MediaItemView } from '@blog/contracts/posts';
import { useEffect, useRef, useState, type KeyboardEvent, type TouchEvent } from 'react';
import { MediaPicture } from '../../components/MediaPicture';
import { pictureSources, youtubeSources } from '../../lib/media';

/** docs/product.md#limits-and-timings: a swipe moves at 50 px; thumbnails are 64 px with an 8 px gap. */
export const SWIPE_THRESHOLD_PX = 50;
const THUMB_STEP_PX = 64 + 8;

/** Index after a step, wrapping around at both ends. */
export const wrapIndex = (index: number, step: number, count: number) =>
  (((index + step) % count) + count) % count;

function Slide({
  item,
  title,
  index,
  active,
}: {
  item: MediaItemView;
  title: string;
  index: number;
  active: boolean;
}) {
  const label = `${title}, media ${index + 1}`;
  if (item.type === 'image') {
    return (
      <MediaPicture
        item={item}
        alt={item.alt || (item.name ? `${title}: ${item.name}` : label)}
        sizes="(max-width: 960px) 100vw, 928px"
        eager={index === 0}
      />
    );
  }
  if (item.type === 'video') {
    return (
      <video
        controls
        preload={active ? 'metadata' : 'none'}
        poster={item.thumbnailPath ?? undefined}
        src={item.path}
        aria-label={item.alt || (item.name ?? label)}
        width={item.width ?? undefined}
        height={item.height ?? undefined}
      />
    );
  }
  const youtube = youtubeSources(item);
  if (!youtube) return null;
  // The frame loads only for the slide on show: nine hidden YouTube frames would cost seconds.
  return active ? (
    <iframe
      src={youtube.embedUrl}
      title={item.title ?? label}
      loading="lazy"
      allow="accelerometer; encrypted-media; gyroscope; picture-in-picture"
      allowFullScreen
      referrerPolicy="strict-origin-when-cross-origin"
    />
  ) : (
    <img src={youtube.thumbnailUrl} alt={item.title ?? label} loading="lazy" width={480} height={360} />
  );
}

function thumbnailOf(item: MediaItemView): string | null {
  if (item.type === 'image') {
    // The smallest variant is plenty for a 64 px thumbnail.
    const smallest = [...(item.variants ?? [])]
      .filter((v) => v.format === 'webp')
      .sort((a, b) => a.width - b.width)[0];
    return smallest?.path ?? pictureSources(item).fallbackSrc;
  }
  if (item.type === 'video') return item.thumbnailPath ?? null;
  return youtubeSources(item)?.thumbnailUrl ?? null;
}

/**
 * The post's media (docs/product.md#screens): previous/next, 'n / total', a thumbnail strip with scroll
 * arrows, swipe, keyboard arrows, wrapping around at both ends.
 */
export function MediaCarousel({ items, title }: { items: MediaItemView[]; title: string }) {
  const [index, setIndex] = useState(0);
  const touchStart = useRef<number | null>(null);
  const strip = useRef<HTMLUListElement>(null);
  const count = items.length;
  const go = (step: number) => setIndex((current) => wrapIndex(current, step, count));

  // Keep the current thumbnail in view, scrolling the strip only (never the page).
  useEffect(() => {
    const list = strip.current;
    const thumb = list?.children[index] as HTMLElement | undefined;
    if (!list || !thumb) return;
    const left = thumb.offsetLeft - list.offsetLeft;
    if (left < list.scrollLeft || left + thumb.offsetWidth > list.scrollLeft + list.clientWidth) {
      list.scrollTo({ left: left - list.clientWidth / 2 + thumb.offsetWidth / 2, behavior: 'smooth' });
    }
  }, [index]);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.target instanceof HTMLVideoElement) return;
    if (event.key === 'ArrowRight') go(1);
    else if (event.key === 'ArrowLeft') go(-1);
    else return;
    event.preventDefault();
  };
  const onTouchStart = (event: TouchEvent) => {
    touchStart.current = event.touches[0]?.clientX ?? null;
  };
  const onTouchEnd = (event: TouchEvent) => {
    const start = touchStart.current;
    const end = event.changedTouches[0]?.clientX;
    touchStart.current = null;
    if (start === null || end === undefined) return;
    const distance = end - start;
    if (Math.abs(distance) >= SWIPE_THRESHOLD_PX) go(distance < 0 ? 1 : -1);
  };
  const scrollStrip = (direction: number) =>
    strip.current?.scrollBy({ left: direction * THUMB_STEP_PX * 3, behavior: 'smooth' });

  return (
    <section
      className="carousel"
      aria-roledescription="carousel"
      aria-label={`${title} media`}
      onKeyDown={onKeyDown}
    >
      <div className="carousel-stage" onTouchStart={onTouchStart} onTouchEnd={onTouchEnd}>
        {items.map((item, i) => (
          <div
            key={item.id}
            className="carousel-slide"
            hidden={i !== index}
            role="group"
            aria-roledescription="slide"
            aria-label={`${i + 1} of ${count}`}
          >
            <Slide item={item} title={title} index={i} active={i === index} />
          </div>
        ))}
        {count > 1 && (
          <>
            <button
              type="button"
              className="carousel-arrow prev"
              onClick={() => go(-1)}
              aria-label="Previous media"
            >
              ‹
            </button>
            <button
              type="button"
              className="carousel-arrow next"
              onClick={() => go(1)}
              aria-label="Next media"
            >
              ›
            </button>
          </>
        )}
      </div>
      {items[index]?.caption && <p className="carousel-caption">{items[index].caption}</p>}
      {count > 1 && (
        <div className="carousel-footer">
          <p className="carousel-counter" aria-live="polite">
            {index + 1} / {count}
          </p>
          <div className="thumb-strip">
            <button
              type="button"
              className="strip-arrow"
              onClick={() => scrollStrip(-1)}
              aria-label="Scroll thumbnails left"
            >
              ‹
            </button>
            <ul ref={strip} className="thumbs">
              {items.map((item, i) => {
                const src = thumbnailOf(item);
                return (
                  <li key={item.id}>
                    <button
                      type="button"
                      className={i === index ? 'thumb current' : 'thumb'}
                      aria-label={`Show media ${i + 1}`}
                      aria-current={i === index ? 'true' : undefined}
                      onClick={() => setIndex(i)}
                    >
                      <ThumbImage src={src} />
                    </button>
                  </li>
                );
              })}
            </ul>
            <button
              type="button"
              className="strip-arrow"
              onClick={() => scrollStrip(1)}
              aria-label="Scroll thumbnails right"
            >
              ›
            </button>
          </div>
        </div>
      )}
    </section>
  );
}

/** A 64 px thumbnail; a play sign instead when there is none or it cannot load (an outside host). */
function ThumbImage({ src }: { src: string | null }) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!src || failed === src) return <span aria-hidden="true">▶</span>;
  return <img src={src} alt="" width={64} height={64} loading="lazy" onError={() => setFailed(src)} />;
}
