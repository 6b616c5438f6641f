import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { insertNewlineContinueMarkup, markdownLanguage } from '@codemirror/lang-markdown';
import { defaultHighlightStyle, LanguageSupport, syntaxHighlighting } from '@codemirror/language';
import { EditorSelection, EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { readingTime } from '@blog/contracts/posts';
import { useApi } from '../../../api/ApiContext';
import { previewPost } from '../lib/adminApi';
import { mediaMarkdown, type FormMedia } from '../lib/formMedia';
import { mediaName } from '../form/MediaArea';
import {
  horizontalRule,
  insertBlock,
  isUrl,
  makeLink,
  toggleCode,
  toggleLines,
  toggleWrap,
  type TextEdit,
} from './markdownCommands';
import './editor.css';
import { ErrorLine } from '../../../components/ui';

/** What the form can do to the editor from outside (the media list's "Insert in text"). */
export interface MarkdownEditorHandle {
  insertMedia(item: FormMedia): void;
}

interface MarkdownEditorProps {
  /** The id of the element that names the editor (the form's "Content" label). */
  labelId: string;
  value: string;
  onChange(value: string): void;
  /** The post's media, for the image button's menu. */
  media: FormMedia[];
  /** Adds dropped, pasted or picked files to the media list; answers the items it accepted. */
  onFiles(files: File[]): FormMedia[];
  /** The post being edited: its media show in the preview. */
  postId?: number;
  handle?: Ref<MarkdownEditorHandle>;
}

const PREVIEW_DELAY_MS = 400;
/** From this width the preview sits beside the text. */
const SIDE_BY_SIDE = '(min-width: 1100px)';

function useWideScreen(): boolean {
  const [wide, setWide] = useState(() => window.matchMedia(SIDE_BY_SIDE).matches);
  useEffect(() => {
    const query = window.matchMedia(SIDE_BY_SIDE);
    const update = () => setWide(query.matches);
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return wide;
}

type PreviewState = { status: 'loading' | 'ready' | 'error'; html: string };

/** The server's rendering of the text, asked again once typing pauses. */
function usePreview(content: string, postId: number | undefined, active: boolean): PreviewState {
  const api = useApi();
  const [state, setState] = useState<PreviewState>({ status: 'loading', html: '' });
  useEffect(() => {
    if (!active) return;
    const controller = new AbortController();
    setState((current) => ({ ...current, status: 'loading' }));
    const timer = setTimeout(() => {
      previewPost(api, content, postId, controller.signal).then(
        (preview) => setState({ status: 'ready', html: preview.html }),
        () => {
          if (!controller.signal.aborted) setState((current) => ({ ...current, status: 'error' }));
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [api, content, postId, active]);
  return state;
}

/**
 * The post's text in Markdown (CodeMirror 6): a toolbar, Ctrl/Cmd+B, I and K, a pasted URL
 * over a selection becomes a link, pictures dropped or pasted join the media list and are
 * placed at the cursor, and a Write / Preview switch (side by side on wide screens) whose
 * preview is the server's renderer. Tab leaves the editor, as in any form field.
 */
export function MarkdownEditor({
  labelId,
  value,
  onChange,
  media,
  onFiles,
  postId,
  handle,
}: MarkdownEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const [mode, setMode] = useState<'write' | 'preview'>('write');
  const [menuOpen, setMenuOpen] = useState(false);
  const wide = useWideScreen();
  const showEditor = mode === 'write';
  const showPreview = mode === 'preview' || wide;
  const preview = usePreview(value, postId, showPreview);
  const counts = readingTime(value);
  // The latest callbacks for the editor's listeners, which are made once.
  const latest = useRef({ onChange, onFiles });
  latest.current = { onChange, onFiles };

  const apply = (edit: (text: string, from: number, to: number) => TextEdit) => {
    const editor = view.current;
    if (!editor) return false;
    const { from, to } = editor.state.selection.main;
    const change = edit(editor.state.doc.toString(), from, to);
    editor.dispatch({
      changes: { from: change.from, to: change.to, insert: change.insert },
      selection: EditorSelection.range(change.selectFrom, change.selectTo),
      scrollIntoView: true,
    });
    editor.focus();
    return true;
  };
  const applyRef = useRef(apply);
  applyRef.current = apply;
  const insertItems = (items: FormMedia[]) => {
    if (items.length)
      apply((text, from, to) => insertBlock(text, from, to, items.map(mediaMarkdown).join('\n\n')));
  };
  const insertRef = useRef(insertItems);
  insertRef.current = insertItems;
  // A file input made on demand: the form keeps one file field (the media area's).
  const pickFiles = () => {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = 'image/*,video/*';
    input.multiple = true;
    input.addEventListener('change', () => {
      if (input.files?.length) insertItems(onFiles([...input.files]));
    });
    input.click();
  };

  useImperativeHandle(handle, () => ({ insertMedia: (item) => insertRef.current([item]) }), []);

  useEffect(() => {
    const imageFiles = (list: FileList | null | undefined) =>
      [...(list ?? [])].filter((file) => file.type.startsWith('image/') || file.type.startsWith('video/'));
    const run = (edit: (text: string, from: number, to: number) => TextEdit) => () => applyRef.current(edit);
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          keymap.of([
            { key: 'Mod-b', run: run((t, f, e) => toggleWrap(t, f, e, '**', 'bold text')) },
            { key: 'Mod-i', run: run((t, f, e) => toggleWrap(t, f, e, '_', 'italic text')) },
            { key: 'Mod-k', run: run((t, f, e) => makeLink(t, f, e)) },
            // Enter continues a list or a quote, as in the peers' editors.
            { key: 'Enter', run: insertNewlineContinueMarkup },
            ...historyKeymap,
            ...defaultKeymap,
          ]),
          // The GFM grammar alone: markdown() would also bring the HTML, CSS and JavaScript modes
          // (for HTML inside Markdown, which the blog shows as text anyway): 150 KB more.
          new LanguageSupport(markdownLanguage),
          syntaxHighlighting(defaultHighlightStyle),
          EditorView.lineWrapping,
          placeholder('Write in Markdown: **bold**, _italic_, ## headings, - lists, [links](https://…)'),
          EditorView.contentAttributes.of({
            'aria-labelledby': labelId,
            'aria-describedby': `${labelId}-counts`,
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
          EditorView.domEventHandlers({
            paste(event, editor) {
              const files = imageFiles(event.clipboardData?.files);
              if (files.length) {
                event.preventDefault();
                insertRef.current(latest.current.onFiles(files));
                return true;
              }
              const pasted = event.clipboardData?.getData('text/plain') ?? '';
              const { from, to } = editor.state.selection.main;
              if (from !== to && isUrl(pasted)) {
                event.preventDefault();
                applyRef.current((text, start, end) => makeLink(text, start, end, pasted.trim()));
                return true;
              }
              return false;
            },
            drop(event, editor) {
              const files = imageFiles(event.dataTransfer?.files);
              if (!files.length) return false;
              event.preventDefault();
              const at =
                editor.posAtCoords({ x: event.clientX, y: event.clientY }) ??
                editor.state.selection.main.head;
              editor.dispatch({ selection: EditorSelection.cursor(at) });
              insertRef.current(latest.current.onFiles(files));
              return true;
            },
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; later values arrive through the effect below.
  }, []);

  // A value set from outside (a restored draft, a reset) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value)
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  // The symbol is shown, the name is read: screen readers and voice control get "Bold", not "B".
  const tool = (
    label: string,
    shortcut: string | null,
    edit: (text: string, from: number, to: number) => TextEdit,
    symbol: string,
  ) => (
    <button
      type="button"
      className="editor-tool"
      title={shortcut ? `${label} (${shortcut})` : label}
      aria-keyshortcuts={shortcut ? shortcut.replace('Ctrl', 'Control') : undefined}
      onMouseDown={(e) => e.preventDefault()} // keep the editor's selection
      onClick={() => apply(edit)}
    >
      <span aria-hidden="true">{symbol}</span>
      <span className="visually-hidden">{label}</span>
    </button>
  );

  return (
    <div className={`markdown-editor${wide && showEditor ? ' side-by-side' : ''}`}>
      <div className="editor-bar">
        <div role="tablist" aria-label="Write or preview" className="editor-tabs">
          {(['write', 'preview'] as const).map((tab) => (
            <button
              key={tab}
              type="button"
              role="tab"
              aria-selected={mode === tab}
              className="editor-tab"
              onClick={() => setMode(tab)}
            >
              {tab === 'write' ? 'Write' : 'Preview'}
            </button>
          ))}
        </div>
        {showEditor && (
          <div role="toolbar" aria-label="Formatting" className="editor-toolbar">
            {tool('Bold', 'Ctrl+B', (t, f, e) => toggleWrap(t, f, e, '**', 'bold text'), 'B')}
            {tool('Italic', 'Ctrl+I', (t, f, e) => toggleWrap(t, f, e, '_', 'italic text'), 'I')}
            {tool('Heading', null, (t, f, e) => toggleLines(t, f, e, 'heading'), 'H')}
            {tool('Link', 'Ctrl+K', (t, f, e) => makeLink(t, f, e), 'Link')}
            {tool('Quote', null, (t, f, e) => toggleLines(t, f, e, 'quote'), '“ ”')}
            {tool('Bulleted list', null, (t, f, e) => toggleLines(t, f, e, 'bullet'), '•')}
            {tool('Numbered list', null, (t, f, e) => toggleLines(t, f, e, 'numbered'), '1.')}
            {tool('Code', null, toggleCode, '</>')}
            <span className="editor-image">
              <button
                type="button"
                className="editor-tool"
                title="Image: place one of the post's pictures, or add one"
                aria-haspopup="true"
                aria-expanded={menuOpen}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => setMenuOpen((open) => !open)}
              >
                <span aria-hidden="true">Image</span>
                <span className="visually-hidden">Image</span>
              </button>
              {menuOpen && (
                <ul
                  className="editor-image-menu"
                  aria-label="Place media in the text"
                  onKeyDown={(e) => {
                    if (e.key === 'Escape') setMenuOpen(false);
                  }}
                >
                  {media.map((item) => (
                    <li key={item.key}>
                      <button
                        type="button"
                        onClick={() => {
                          setMenuOpen(false);
                          insertItems([item]);
                        }}
                      >
                        {mediaName(item)}
                      </button>
                    </li>
                  ))}
                  <li>
                    <button
                      type="button"
                      onClick={() => {
                        setMenuOpen(false);
                        pickFiles();
                      }}
                    >
                      Upload a new image…
                    </button>
                  </li>
                </ul>
              )}
            </span>
            {tool('Horizontal rule', null, horizontalRule, '—')}
          </div>
        )}
      </div>
      <div className="editor-panes">
        <div className="editor-pane" hidden={!showEditor}>
          <div ref={host} className="editor-host" />
        </div>
        {showPreview && (
          <div
            className="editor-pane editor-preview"
            aria-label="Preview"
            role="region"
            aria-busy={preview.status === 'loading'}
          >
            {preview.status === 'error' ? (
              <ErrorLine error="The preview could not be made. Check your connection; your text is kept." />
            ) : preview.html ? (
              // The server's sanitised rendering: exactly what visitors will get.
              <div className="post-content" dangerouslySetInnerHTML={{ __html: preview.html }} />
            ) : (
              <p className="admin-hint">
                {preview.status === 'loading' ? 'Rendering the preview...' : 'Nothing to preview yet.'}
              </p>
            )}
          </div>
        )}
      </div>
      <p id={`${labelId}-counts`} className="editor-counts">
        {counts.words === 1 ? '1 word' : `${counts.words} words`} · {counts.minutes} min read
      </p>
    </div>
  );
}
