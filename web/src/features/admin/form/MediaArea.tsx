import { DRAG } from '@blog/contracts/admin';
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
} from '@dnd-kit/core';
import {
  rectSortingStrategy,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { useEffect, useId, useState, type DragEvent } from 'react';
import { thumbnailSrc } from '../posts/MediaThumb';
import { Thumbnail } from '../ui/Thumbnail';
import { MEDIA_ALT_MAX, MEDIA_CAPTION_MAX } from '@blog/contracts/posts';
import { mainImage, type FormMedia } from '../lib/formMedia';
import { ErrorLine, Field } from '../../../components/ui';

interface MediaAreaProps {
  media: FormMedia[];
  errors: string[];
  onFiles(files: File[]): void;
  onYoutube(url: string, title: string): string | null;
  onMove(fromKey: string, toKey: string): void;
  onRemove(key: string): void;
  onCrop(): void;
  onRetry(key: string): void;
  /** An image's or video's alt text or caption typed. */
  onDescribe(key: string, field: 'alt' | 'caption', value: string): void;
  /** Places the item in the text at the cursor. */
  onInsert(key: string): void;
  retrying: string | null;
  hasCrop: boolean;
}

export function mediaName(item: FormMedia): string {
  if (item.source === 'youtube') return item.title;
  if (item.source === 'new') return item.name;
  return item.item.name ?? `${item.type} ${item.order + 1}`;
}

/**
 * The post's media (docs/product.md#screens, #how-the-screens-behave, #limits-and-timings): pick or drop files, add YouTube links, one ordered
 * list reordered by drag and drop (mouse after 8 px, touch after 100 ms) or by keyboard
 * (Space to lift, arrows to move, Space to drop), every move announced.
 */
export function MediaArea(props: MediaAreaProps) {
  const { media, errors, onFiles, onYoutube, onMove } = props;
  const id = useId();
  const [dragOver, setDragOver] = useState(false);
  const [url, setUrl] = useState('');
  const [title, setTitle] = useState('');
  const [urlError, setUrlError] = useState<string | null>(null);
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: DRAG.distance } }),
    useSensor(TouchSensor, {
      activationConstraint: { delay: DRAG.touchDelay, tolerance: DRAG.touchTolerance },
    }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  const position = (id: unknown) => media.findIndex((m) => m.key === id) + 1;
  const nameOf = (id: unknown) => {
    const item = media.find((m) => m.key === id);
    return item ? mediaName(item) : 'item';
  };
  const announcements: Announcements = {
    onDragStart: ({ active }) =>
      `Picked up ${nameOf(active.id)}, position ${position(active.id)} of ${media.length}.`,
    // Over itself (as at pick-up) is no move: the pick-up message stays.
    onDragOver: ({ active, over }) =>
      over && over.id !== active.id
        ? `${nameOf(active.id)} moved to position ${position(over.id)} of ${media.length}.`
        : undefined,
    onDragEnd: ({ active, over }) =>
      over
        ? `${nameOf(active.id)} dropped at position ${position(over.id)} of ${media.length}.`
        : `${nameOf(active.id)} dropped.`,
    onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} cancelled.`,
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (over && active.id !== over.id) onMove(String(active.id), String(over.id));
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragOver(false);
    if (event.dataTransfer.files.length) onFiles([...event.dataTransfer.files]);
  };
  const addLink = () => {
    const error = onYoutube(url, title);
    setUrlError(error);
    if (!error) {
      setUrl('');
      setTitle('');
    }
  };
  const main = mainImage(media);

  return (
    <fieldset className="admin-media">
      <legend>Media</legend>
      <div
        className={dragOver ? 'admin-dropzone over' : 'admin-dropzone'}
        onDragOver={(e) => {
          e.preventDefault();
          setDragOver(true);
        }}
        onDragLeave={() => setDragOver(false)}
        onDrop={drop}
      >
        <label htmlFor={`${id}-post-files`} className="button button-secondary">
          Add images or videos
        </label>
        <input
          id={`${id}-post-files`}
          className="visually-hidden"
          type="file"
          multiple
          accept="image/*,video/*"
          onChange={(e) => {
            if (e.target.files?.length) onFiles([...e.target.files]);
            e.target.value = '';
          }}
        />
        <span className="admin-hint">or drop them here (images and videos, up to 100MB each)</span>
      </div>
      {errors.length > 0 && (
        <ul className="admin-media-errors" role="alert">
          {errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
      <div className="admin-youtube">
        <Field id={`${id}-youtube-url`} label="YouTube link">
          <input
            id={`${id}-youtube-url`}
            type="url"
            inputMode="url"
            value={url}
            aria-invalid={urlError ? true : undefined}
            aria-describedby={urlError ? `${id}-youtube-error` : undefined}
            onChange={(e) => setUrl(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                addLink();
              }
            }}
          />
        </Field>
        <Field id={`${id}-youtube-title`} label="Video title (optional)">
          <input id={`${id}-youtube-title`} value={title} onChange={(e) => setTitle(e.target.value)} />
        </Field>
        <button type="button" className="button button-secondary" onClick={addLink}>
          Add YouTube video
        </button>
        <ErrorLine id={`${id}-youtube-error`} error={urlError} />
      </div>
      {media.length > 0 && (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{
            announcements,
            screenReaderInstructions: {
              draggable:
                'To reorder, press Space to lift the item, use the arrow keys to move it, then Space to drop it or Escape to cancel.',
            },
          }}
        >
          <SortableContext items={media.map((m) => m.key)} strategy={rectSortingStrategy}>
            <ol className="admin-media-list" aria-label="Media order">
              {media.map((item, index) => (
                <SortableMedia
                  key={item.key}
                  item={item}
                  index={index}
                  count={media.length}
                  isMain={item === main}
                  {...props}
                />
              ))}
            </ol>
          </SortableContext>
        </DndContext>
      )}
    </fieldset>
  );
}

interface SortableMediaProps extends MediaAreaProps {
  item: FormMedia;
  index: number;
  count: number;
  isMain: boolean;
}

function SortableMedia({
  item,
  index,
  count,
  isMain,
  onRemove,
  onCrop,
  onRetry,
  onDescribe,
  onInsert,
  retrying,
  hasCrop,
}: SortableMediaProps) {
  const fieldId = useId();
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } =
    useSortable({
      id: item.key,
    });
  const name = mediaName(item);
  const saved = item.source === 'saved' ? item.item : null;
  const status = saved?.status ?? 'ready';
  const src =
    item.source === 'new'
      ? item.preview
      : item.source === 'youtube'
        ? item.thumbnailUrl
        : thumbnailSrc(saved!);
  const state =
    item.source === 'new'
      ? 'New, uploads on save'
      : item.source === 'youtube'
        ? 'YouTube'
        : status === 'pending'
          ? 'Processing'
          : status === 'failed'
            ? 'Failed'
            : 'Ready';
  return (
    <li
      ref={setNodeRef}
      className={`admin-media-item${isDragging ? ' dragging' : ''}${isMain ? ' is-main' : ''}`}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      data-key={item.key}
      data-status={status}
    >
      <button
        type="button"
        ref={setActivatorNodeRef}
        className="admin-drag-handle"
        {...attributes}
        {...listeners}
        aria-label={`Reorder ${name}, position ${index + 1} of ${count}`}
        aria-roledescription="sortable media item"
      >
        <span className="admin-media-picture">
          {item.source === 'new' && item.type === 'video' ? (
            <NewVideoPreview file={item.file} />
          ) : (
            <Thumbnail
              src={src}
              placeholder={item.type === 'video' ? '▶' : status === 'failed' ? '!' : '…'}
            />
          )}
        </span>
      </button>
      <div className="admin-media-info">
        <span className="admin-media-order" aria-hidden="true">
          {index + 1}
        </span>
        <span className="admin-media-name" title={name}>
          {name}
        </span>
        <span className="admin-media-state">
          {isMain ? 'Main image · ' : ''}
          {state}
        </span>
        {status === 'failed' && saved?.error && (
          <span className="form-error admin-media-error">{saved.error}</span>
        )}
      </div>
      {item.source !== 'youtube' && (
        <div className="admin-media-text">
          <label htmlFor={`${fieldId}-alt`}>Alt text</label>
          <input
            id={`${fieldId}-alt`}
            value={item.alt ?? ''}
            maxLength={MEDIA_ALT_MAX}
            placeholder={item.type === 'image' ? 'What the picture shows' : 'What the video shows'}
            aria-label={`Alt text for ${name}`}
            onChange={(e) => onDescribe(item.key, 'alt', e.target.value)}
          />
          <label htmlFor={`${fieldId}-caption`}>Caption</label>
          <input
            id={`${fieldId}-caption`}
            value={item.caption ?? ''}
            maxLength={MEDIA_CAPTION_MAX}
            aria-label={`Caption for ${name}`}
            onChange={(e) => onDescribe(item.key, 'caption', e.target.value)}
          />
        </div>
      )}
      <div className="admin-media-actions">
        {isMain && (item.source === 'new' ? !!item.preview : status === 'ready') && (
          <button type="button" className="button button-secondary button-small" onClick={onCrop}>
            {hasCrop ? 'Adjust crop' : 'Crop'}
          </button>
        )}
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => onInsert(item.key)}
          aria-label={`Insert in text: ${name}`}
        >
          Insert in text
        </button>
        {status === 'failed' && (
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={retrying === item.key}
            onClick={() => onRetry(item.key)}
            aria-label={`Retry ${name}`}
          >
            {retrying === item.key ? 'Retrying...' : 'Retry'}
          </button>
        )}
        <button
          type="button"
          className="button button-danger button-small"
          onClick={() => onRemove(item.key)}
          aria-label={`Remove ${name}`}
        >
          Remove
        </button>
      </div>
    </li>
  );
}

/** A picked video's first frame, from the file itself (a blob: URL, released when the item goes). */
function NewVideoPreview({ file }: { file: File }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);
  return url ? (
    <video className="admin-video-preview" src={url} muted preload="metadata" aria-hidden="true" />
  ) : null;
}
