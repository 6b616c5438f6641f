import { NOTE_CONTENT_MAX, NOTE_PICTURES_MAX, type NotesPage, type NoteView } from '@blog/contracts/notes';
import type { ReactionCounts } from '@blog/contracts/social';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useApi } from '../../../api/ApiContext';
import { errorMessage } from '../../../api/client';
import { ErrorLine, LoadFailed } from '../../../components/ui';
import { useAsync } from '../../../hooks/useAsync';
import { formatDateTime } from '../../../lib/format';
import { useNotify } from '../ui/Notifications';
import { noteReactionCounts } from '../fediverse/fediverseApi';
import { reactionsText } from '../fediverse/reactionsText';
import { NotePicturesKept, NotePicturesPicker, NotePicturesShown } from './NotePictures';
import { createNote, deleteNote, editNote, listNotes, type PictureChoice } from './notesApi';
import './notes.css';

/** The page's cursor in the URL (`?cursor=`: a notes page's next), so an older page can be shared. */
function useCursorParam(): [string | null, (cursor: string | null) => void] {
  const [params, setParams] = useSearchParams();
  const value = params.get('cursor');
  const cursor = value && /^[1-9][0-9]{0,9}$/.test(value) ? value : null;
  const set = (next: string | null) =>
    setParams((current) => {
      const copy = new URLSearchParams(current);
      if (next) copy.set('cursor', next);
      else copy.delete('cursor');
      return copy;
    });
  return [cursor, set];
}

/** How often a page with a picture still being processed is read again, and for how long at most. */
const PROCESSING_POLL_MS = 3000;
const PROCESSING_POLL_FOR_MS = 10 * 60_000;

const processing = (page: NotesPage | null) =>
  page?.items.some((note) => note.pictures?.some((p) => p.status === 'pending')) ?? false;

/**
 * The page as last read: while one of its pictures is being processed, it is read again every
 * few seconds, in place (no "Loading", the edits in hand kept), until none is (or ten minutes
 * went by: a stuck picture stays named so); a failed read tries again at the next turn.
 */
function useProcessedPictures(
  loaded: NotesPage | null,
  load: (signal: AbortSignal) => Promise<NotesPage>,
): NotesPage | null {
  const [latest, setLatest] = useState<{ of: NotesPage; page: NotesPage } | null>(null);
  const [turn, setTurn] = useState(0);
  const since = useRef<{ of: NotesPage | null; at: number }>({ of: null, at: 0 });
  const page = latest && latest.of === loaded ? latest.page : loaded;
  if (since.current.of !== loaded) since.current = { of: loaded, at: Date.now() };
  const waiting = processing(page) && Date.now() - since.current.at < PROCESSING_POLL_FOR_MS;
  useEffect(() => {
    if (!waiting || !loaded) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      load(controller.signal).then(
        (fresh) => !controller.signal.aborted && setLatest({ of: loaded, page: fresh }),
        () => !controller.signal.aborted && setTurn((n) => n + 1),
      );
    }, PROCESSING_POLL_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // `load` reads the same page as `loaded` came from.
  }, [page, waiting, turn]);
  return page;
}

/**
 * Notes: the blog's short posts (Markdown, up to 5,000 characters, up to 4 pictures with alt
 * texts), each with its own page and sent to the fediverse as a Note. Write one; the list shows them newest first, a page at a time,
 * each edited in place or deleted (after a confirm).
 */
export function NotesTab() {
  const api = useApi();
  const [cursor, setCursor] = useCursorParam();
  const [reload, setReload] = useState(0);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const page = useAsync((signal) => listNotes(api, cursor, signal), [api, cursor, reload]);
  const shown = useProcessedPictures(page.status === 'ready' ? page.data : null, (signal) =>
    listNotes(api, cursor, signal),
  );
  // Likes, boosts and quotes from the fediverse (none shown when they could not be counted).
  const ids = shown?.items.map((note) => note.id).join(',') ?? '';
  const reactions = useAsync(
    (signal) => noteReactionCounts(api, ids ? ids.split(',').map(Number) : [], signal),
    [api, ids],
  );
  const refresh = () => setReload((n) => n + 1);
  const go = (next: string | null) => {
    setCursor(next);
    headingRef.current?.focus();
  };

  return (
    <section className="card admin-notes" aria-labelledby="notes-heading">
      <h2 id="notes-heading" ref={headingRef} tabIndex={-1}>
        Notes
      </h2>
      <p className="admin-notes-hint">
        Short posts without a title. Each has its own page under <a href="/notes">/notes</a> and goes to the
        blog&apos;s followers in the fediverse; editing sends the change, deleting takes it back.
      </p>
      <NoteComposer
        onWritten={() => {
          // The newest note heads the first page.
          if (cursor) setCursor(null);
          else refresh();
        }}
      />
      <h3 className="admin-notes-list-heading">Written notes</h3>
      {page.status === 'loading' && <p role="status">Loading notes...</p>}
      {page.status === 'error' && (
        <LoadFailed error={errorMessage(page.error, 'The notes could not be loaded.')} onRetry={refresh} />
      )}
      {shown &&
        (shown.items.length === 0 ? (
          <p className="empty">{cursor ? 'No older notes.' : 'No notes yet: write the first one above.'}</p>
        ) : (
          <ol className="admin-notes-list" aria-label="Notes, newest first">
            {shown.items.map((note) => (
              <li key={note.id}>
                <NoteEntry
                  note={note}
                  reactions={reactions.status === 'ready' ? (reactions.data[note.id] ?? null) : null}
                  onChanged={refresh}
                />
              </li>
            ))}
          </ol>
        ))}
      {(cursor || shown?.next) && (
        <nav className="admin-notes-pages" aria-label="Notes pages">
          {cursor && (
            <button type="button" className="button button-secondary" onClick={() => go(null)}>
              Newest
            </button>
          )}
          {shown?.next && (
            <button type="button" className="button button-secondary" onClick={() => go(shown.next)}>
              Older notes
            </button>
          )}
        </nav>
      )}
    </section>
  );
}

/** A textarea with its count (announced politely when near the limit) and the Markdown hint. */
function NoteText({
  id,
  label,
  value,
  error,
  autoFocus,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  error: string | null;
  autoFocus?: boolean;
  onChange(value: string): void;
}) {
  const left = NOTE_CONTENT_MAX - value.length;
  return (
    <>
      <label htmlFor={`${id}-text`}>{label}</label>
      <textarea
        id={`${id}-text`}
        rows={4}
        maxLength={NOTE_CONTENT_MAX}
        value={value}
        autoFocus={autoFocus}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint ${id}-count ${id}-error`}
        onChange={(event) => onChange(event.target.value)}
      />
      <div className="admin-notes-under">
        <p id={`${id}-hint`} className="admin-notes-hint">
          Markdown: **bold**, *italic*, [a link](https://example.com), lists.
        </p>
        <p
          id={`${id}-count`}
          className={left < 200 ? 'admin-notes-count admin-notes-count-low' : 'admin-notes-count'}
          aria-live={left < 200 ? 'polite' : 'off'}
        >
          {value.length.toLocaleString('en')} / {NOTE_CONTENT_MAX.toLocaleString('en')} characters
        </p>
      </div>
      <ErrorLine id={`${id}-error`} error={error} />
    </>
  );
}

function NoteComposer({ onWritten }: { onWritten(): void }) {
  const api = useApi();
  const notify = useNotify();
  const id = useId();
  const [text, setText] = useState('');
  const [pictures, setPictures] = useState<PictureChoice[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return setError('Write the note first.');
    setSending(true);
    setError(null);
    try {
      const note = await createNote(api, text, pictures);
      setText('');
      setPictures([]);
      notify('success', `Note published: ${note.url}`);
      onWritten();
    } catch (failure) {
      setError(errorMessage(failure, 'The note could not be published.'));
    } finally {
      setSending(false);
    }
  };
  return (
    <form className="admin-notes-composer" onSubmit={(event) => void submit(event)} noValidate>
      <NoteText id={id} label="New note" value={text} error={error} onChange={setText} />
      <NotePicturesPicker id={id} pictures={pictures} disabled={sending} onChange={setPictures} />
      <div className="admin-actions">
        <button type="submit" className="button" disabled={sending}>
          {sending ? 'Publishing...' : 'Publish note'}
        </button>
      </div>
    </form>
  );
}

function NoteEntry({
  note,
  reactions,
  onChanged,
}: {
  note: NoteView;
  reactions: ReactionCounts[number] | null;
  onChanged(): void;
}) {
  const api = useApi();
  const notify = useNotify();
  const id = useId();
  const editRef = useRef<HTMLButtonElement>(null);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(note.content);
  const [removed, setRemoved] = useState<string[]>([]);
  const [added, setAdded] = useState<PictureChoice[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'save' | 'delete' | null>(null);
  const when = formatDateTime(note.published);
  const pictures = note.pictures ?? [];
  const kept = pictures.filter((p) => !removed.includes(p.id));

  const close = () => {
    setEditing(false);
    setError(null);
    setText(note.content);
    setRemoved([]);
    setAdded([]);
    // Focus goes back where the edit began.
    setTimeout(() => editRef.current?.focus(), 0);
  };
  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return setError('A note cannot be empty; delete it instead.');
    setBusy('save');
    setError(null);
    try {
      const changed = removed.length > 0 || added.length > 0;
      await editNote(api, note.id, text, changed ? { keep: kept.map((p) => p.id), added } : undefined);
      notify('success', 'Note saved.');
      setEditing(false);
      setRemoved([]);
      setAdded([]);
      onChanged();
    } catch (failure) {
      setError(errorMessage(failure, 'The note could not be saved.'));
    } finally {
      setBusy(null);
    }
  };
  const remove = async () => {
    if (!window.confirm('Delete this note? Its page goes away and the fediverse is told.')) return;
    setBusy('delete');
    try {
      await deleteNote(api, note.id);
      notify('success', 'Note deleted.');
      onChanged();
    } catch (failure) {
      notify('error', errorMessage(failure, 'The note could not be deleted.'));
      setBusy(null);
    }
  };

  return (
    <article className="admin-note" aria-label={`Note of ${when}`}>
      <p className="admin-note-meta">
        <a href={note.url}>
          <time dateTime={note.published}>{when}</time>
          <span className="visually-hidden">: open the note&apos;s page</span>
        </a>
        {note.updated && <span> · edited</span>}
        {note.mention && <span> · in reply to @{note.mention.handle}</span>}
        {reactions && <span> · {reactionsText(reactions)}</span>}
      </p>
      {editing ? (
        <form className="admin-note-edit" onSubmit={(event) => void save(event)} noValidate>
          <NoteText id={id} label="Edit the note" value={text} error={error} autoFocus onChange={setText} />
          <NotePicturesKept
            id={id}
            pictures={pictures}
            removed={removed}
            disabled={busy !== null}
            onChange={setRemoved}
          />
          <NotePicturesPicker
            id={id}
            pictures={added}
            disabled={busy !== null}
            max={NOTE_PICTURES_MAX - kept.length}
            legend={`More pictures (${NOTE_PICTURES_MAX} in all at most)`}
            onChange={setAdded}
          />
          <div className="admin-actions">
            <button type="submit" className="button button-small" disabled={busy !== null}>
              {busy === 'save' ? 'Saving...' : 'Save'}
            </button>
            <button type="button" className="button button-small button-secondary" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          {/* Rendered and sanitised by the server when the note was saved. */}
          <div className="admin-note-content" dangerouslySetInnerHTML={{ __html: note.html }} />
          <NotePicturesShown pictures={note.pictures} />
          <div className="admin-actions">
            <button
              ref={editRef}
              type="button"
              className="button button-small button-secondary"
              disabled={busy !== null}
              onClick={() => setEditing(true)}
            >
              Edit<span className="visually-hidden"> the note of {when}</span>
            </button>
            <button
              type="button"
              className="button button-small button-danger"
              disabled={busy !== null}
              onClick={() => void remove()}
            >
              {busy === 'delete' ? 'Deleting...' : 'Delete'}
              <span className="visually-hidden"> the note of {when}</span>
            </button>
          </div>
        </>
      )}
    </article>
  );
}
