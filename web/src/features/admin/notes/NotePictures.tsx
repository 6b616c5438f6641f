import { NOTE_ALT_MAX, NOTE_PICTURES_MAX, type NotePictureView } from '@blog/contracts/notes';
import { useEffect, useRef, useState } from 'react';
import type { PictureChoice } from './notesApi';

/** Types a note's picture may have (the server checks the content; HEIC is refused there too). */
const ACCEPT = 'image/jpeg,image/png,image/webp,image/gif,image/avif';

interface Chosen extends PictureChoice {
  key: number;
  preview: string;
}

/**
 * The composer's pictures: up to NOTE_PICTURES_MAX, each previewed with its own alt-text field
 * and a Remove button. The previews' object URLs are released as pictures go.
 */
export function NotePicturesPicker({
  id,
  pictures,
  disabled,
  max = NOTE_PICTURES_MAX,
  legend = `Pictures (up to ${NOTE_PICTURES_MAX})`,
  onChange,
}: {
  id: string;
  pictures: PictureChoice[];
  disabled?: boolean;
  /** How many may be added (an edit: what the kept ones leave room for). */
  max?: number;
  legend?: string;
  onChange(pictures: PictureChoice[]): void;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const nextKey = useRef(0);
  const [chosen, setChosen] = useState<Chosen[]>([]);
  const [notice, setNotice] = useState<string | null>(null);

  // The parent clears the list after publishing: previews go with it.
  useEffect(() => {
    if (pictures.length === 0 && chosen.length > 0) {
      chosen.forEach((c) => URL.revokeObjectURL(c.preview));
      setChosen([]);
    }
  }, [pictures, chosen]);
  // Released when the composer goes too (the ref sees the last list).
  const latest = useRef(chosen);
  latest.current = chosen;
  useEffect(() => () => latest.current.forEach((c) => URL.revokeObjectURL(c.preview)), []);

  const update = (next: Chosen[]) => {
    setChosen(next);
    onChange(next.map(({ file, alt }) => ({ file, alt })));
  };
  const add = (files: FileList | null) => {
    if (!files?.length) return;
    const room = max - chosen.length;
    const taken = [...files].slice(0, Math.max(0, room));
    setNotice(
      files.length > room
        ? `A note has at most ${NOTE_PICTURES_MAX} pictures: ${files.length - taken.length} not added.`
        : null,
    );
    update([
      ...chosen,
      ...taken.map((file) => ({ file, alt: '', key: nextKey.current++, preview: URL.createObjectURL(file) })),
    ]);
    if (inputRef.current) inputRef.current.value = '';
  };
  const remove = (key: number) => {
    const gone = chosen.find((c) => c.key === key);
    if (gone) URL.revokeObjectURL(gone.preview);
    setNotice(null);
    update(chosen.filter((c) => c.key !== key));
    inputRef.current?.focus();
  };
  const setAlt = (key: number, alt: string) => update(chosen.map((c) => (c.key === key ? { ...c, alt } : c)));

  return (
    <fieldset className="admin-notes-pictures">
      <legend>{legend}</legend>
      <label htmlFor={`${id}-pictures`}>Add pictures</label>
      <input
        ref={inputRef}
        id={`${id}-pictures`}
        type="file"
        accept={ACCEPT}
        multiple
        disabled={disabled || chosen.length >= max}
        aria-describedby={`${id}-pictures-hint`}
        onChange={(event) => add(event.target.files)}
      />
      <p id={`${id}-pictures-hint`} className="admin-notes-hint">
        JPEG, PNG, WebP, GIF or AVIF. Describe each picture for people who cannot see it.
      </p>
      {notice && (
        <p className="admin-notes-count-low" role="status">
          {notice}
        </p>
      )}
      {chosen.length > 0 && (
        <ul className="admin-notes-picture-list" aria-label="Chosen pictures">
          {chosen.map((c, i) => (
            <li key={c.key}>
              <img src={c.preview} alt="" width={96} height={96} />
              <div>
                <label htmlFor={`${id}-alt-${c.key}`}>
                  Alt text for picture {i + 1} <span className="admin-notes-hint">({c.file.name})</span>
                </label>
                <input
                  id={`${id}-alt-${c.key}`}
                  type="text"
                  maxLength={NOTE_ALT_MAX}
                  value={c.alt}
                  disabled={disabled}
                  onChange={(event) => setAlt(c.key, event.target.value)}
                />
                <button
                  type="button"
                  className="button button-small button-secondary"
                  disabled={disabled}
                  onClick={() => remove(c.key)}
                >
                  Remove
                  <span className="visually-hidden">
                    {' '}
                    picture {i + 1} ({c.file.name})
                  </span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** A written note's pictures in the list: the ready ones drawn, the others named by their state. */
export function NotePicturesShown({ pictures }: { pictures: NotePictureView[] }) {
  if (!pictures?.length) return null;
  return (
    <ul className="admin-note-pictures" aria-label="Pictures">
      {pictures.map((p, i) => (
        <li key={p.id}>
          {p.status === 'ready' && p.src ? (
            <img
              src={p.src}
              srcSet={p.srcset || undefined}
              sizes="8rem"
              alt={p.alt}
              width={p.width ?? undefined}
              height={p.height ?? undefined}
              loading="lazy"
            />
          ) : (
            <span className="admin-note-picture-state">
              Picture {i + 1}: {p.status === 'pending' ? 'processing…' : 'could not be processed'}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * An edit's written pictures: each kept unless the owner removes it (Undo brings it back until
 * Save). `removed` holds the ids that go.
 */
export function NotePicturesKept({
  id,
  pictures,
  removed,
  disabled,
  onChange,
}: {
  id: string;
  pictures: NotePictureView[];
  removed: string[];
  disabled?: boolean;
  onChange(removed: string[]): void;
}) {
  if (!pictures.length) return null;
  return (
    <ul className="admin-notes-picture-list" aria-label="Pictures of the note" id={`${id}-kept`}>
      {pictures.map((p, i) => {
        const gone = removed.includes(p.id);
        const name = `picture ${i + 1}${p.alt ? ` (${p.alt})` : ''}`;
        return (
          <li key={p.id}>
            {p.src ? (
              <img
                src={p.src}
                alt={p.alt}
                width={96}
                height={96}
                className={gone ? 'admin-note-picture-gone' : ''}
              />
            ) : (
              <span className="admin-note-picture-state">
                Picture {i + 1}: {p.status === 'pending' ? 'processing…' : 'could not be processed'}
              </span>
            )}
            <div>
              {gone && <p className="admin-notes-hint">Removed on Save.</p>}
              <button
                type="button"
                className="button button-small button-secondary"
                disabled={disabled}
                aria-pressed={gone}
                onClick={() => onChange(gone ? removed.filter((r) => r !== p.id) : [...removed, p.id])}
              >
                {gone ? 'Undo remove' : 'Remove'}
                <span className="visually-hidden"> {name}</span>
              </button>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
