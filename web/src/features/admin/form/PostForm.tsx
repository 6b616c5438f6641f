import { AdminText } from '@blog/contracts/admin';
import { PostErrors, type PostView } from '@blog/contracts/posts';
import { useEffect, useId, useRef, useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { useSite } from '../../../site/SiteContext';
import { retryMedia } from '../lib/adminApi';
import { makeDraft, type CropSettings } from '../lib/draft';
import { formStart, newMediaKey } from '../lib/formStart';
import { checkFiles, mediaTypeOf, readPreview } from '../lib/fileChecks';
import {
  addYoutube,
  describeMedia,
  mainImage,
  moveMedia,
  removeMedia,
  type FormMedia,
} from '../lib/formMedia';
import {
  scheduledFor,
  submenu1Options,
  submenu2Options,
  withCategory,
  withSubmenu1,
  worthSaving,
  type PostFormValues,
} from '../lib/postForm';
import { postFormData } from '../lib/postPayload';
import { Modal } from '../ui/Modal';
import { useNotify } from '../ui/Notifications';
import { useReportUploading } from '../ui/UploadFlag';
import { MarkdownEditor, type MarkdownEditorHandle } from '../editor/MarkdownEditor';
import { formatDateTime } from '../../../lib/format';
import { PostCommentOptions } from '../comments/PostCommentOptions';
import { PostEmailOptions } from '../newsletter/PostEmailOptions';
import { CropDialog } from './CropDialog';
import { DateTimePicker } from './DateTimePicker';
import { MediaArea } from './MediaArea';
import { UploadOverlay } from './UploadOverlay';
import { usePostSave } from './usePostSave';
import { useAutosave } from './useAutosave';
import { ErrorLine, Field, SubmitButton } from '../../../components/ui';

interface PostFormProps {
  /** The post to edit; a new post when absent. */
  post?: PostView;
  onSaved(post: PostView): void;
  onCancel(): void;
}

/**
 * The add and edit form (docs/product.md#screens, #how-the-screens-behave, #limits-and-timings, docs/api.md, docs/product.md#error-texts). Saving sends the multipart form with
 * real progress; a network failure keeps everything and offers Retry.
 */
export function PostForm(props: PostFormProps) {
  const site = useSite();
  return <PostFormBody {...props} site={site} />;
}

function PostFormBody({
  post,
  onSaved,
  onCancel,
  site,
}: PostFormProps & { site: NonNullable<ReturnType<typeof useSite>> }) {
  const api = useApi();
  const notify = useNotify();
  const id = useId();
  const isNew = !post;
  const [initial] = useState(() => formStart(post, site, window.localStorage, new Date()));
  const [values, setValues] = useState(initial.values);
  const [media, setMedia] = useState<FormMedia[]>(initial.media);
  const [crop, setCrop] = useState<CropSettings | null>(initial.crop);
  const [changes, setChanges] = useState(0);
  const [titleError, setTitleError] = useState<string | null>(null);
  const [mediaErrors, setMediaErrors] = useState<string[]>([]);
  const [heicMessage, setHeicMessage] = useState<string | null>(null);
  const [cropOpen, setCropOpen] = useState(false);
  const { upload, failure: saveError, save } = usePostSave(post, onSaved);
  const [retryingItem, setRetryingItem] = useState<string | null>(null);
  const titleRef = useRef<HTMLInputElement>(null);
  const editorRef = useRef<MarkdownEditorHandle>(null);
  const bannerRef = useRef<HTMLDivElement>(null);
  useReportUploading(upload !== null);
  // The banner sits above the form: bring it into view when a save fails.
  useEffect(() => {
    if (saveError) bannerRef.current?.scrollIntoView({ block: 'nearest' });
  }, [saveError]);

  const main = mainImage(media);
  const mainKey = main?.key ?? null;
  // The crop belongs to the main image; when another image takes over, it starts uncropped.
  const cropOwner = useRef(mainKey);
  useEffect(() => {
    if (cropOwner.current !== mainKey) setCrop(null);
    cropOwner.current = mainKey;
  }, [mainKey]);

  const { state: autosave, saveNow } = useAutosave(isNew, changes, worthSaving(values), () =>
    makeDraft(values, media, crop, Date.now()),
  );

  const edit = (next: PostFormValues) => {
    setValues(next);
    setChanges((n) => n + 1);
  };
  const editMedia = (update: (items: FormMedia[]) => FormMedia[]) => {
    setMedia(update);
    setChanges((n) => n + 1);
  };

  /** Adds the files that pass the checks; answers them, so the editor can place them in the text. */
  const addFiles = (files: File[]): FormMedia[] => {
    const check = checkFiles(files);
    setMediaErrors(check.errors);
    setHeicMessage(check.heicMessage);
    const added = check.accepted.map((file): FormMedia => ({
      key: newMediaKey(),
      source: 'new',
      type: mediaTypeOf(file),
      order: 0,
      file,
      name: file.name,
      preview: null,
    }));
    editMedia((items) => [...items, ...added].map((item, order) => ({ ...item, order })));
    for (const item of added) {
      if (item.type !== 'image' || item.source !== 'new') continue;
      readPreview(item.file).then(
        (preview) => setMedia((items) => items.map((m) => (m.key === item.key ? { ...m, preview } : m))),
        (error: Error) => {
          setMediaErrors((errors) => [...errors, error.message]);
          setMedia((items) => removeMedia(items, item.key));
        },
      );
    }
    return added;
  };

  const addLink = (url: string, title: string) => {
    const result = addYoutube(media, url, title, newMediaKey());
    if (!result.error && result.items !== media) editMedia(() => result.items);
    return result.error;
  };

  const retryItem = async (key: string) => {
    if (!post) return;
    setRetryingItem(key);
    try {
      const fresh = await retryMedia(api, post.id, key);
      const view = fresh.media.find((m) => m.id === key);
      if (view)
        setMedia((items) =>
          items.map((m) => (m.key === key && m.source === 'saved' ? { ...m, item: view } : m)),
        );
      notify('info', `${view?.name ?? 'The file'} is being processed again.`);
    } catch {
      notify('error', 'Retry failed. Please try again.');
    } finally {
      setRetryingItem(null);
    }
  };

  const submit = (retrying: boolean) => {
    if (!values.title.trim()) {
      setTitleError(PostErrors.titleRequired);
      titleRef.current?.focus();
      return;
    }
    setTitleError(null);
    void save(postFormData(values, media, crop), () => makeDraft(values, media, crop, Date.now()), retrying);
  };

  const level1 = submenu1Options(site, values.category);
  const level2 = submenu2Options(site, values.category, values.submenu1);
  const cropSrc =
    main?.source === 'new' ? main.preview : main?.source === 'saved' ? largestPicture(main.item) : null;
  const heading = isNew ? 'New Post' : `Edit Post: ${post.title}`;
  const scheduled = scheduledFor(values, new Date());

  return (
    <section className="admin-form-card" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>{heading}</h3>
      {saveError && (
        <div className="admin-banner admin-banner-error" role="alert" ref={bannerRef}>
          {saveError.banner}
        </div>
      )}
      {initial.restored && (
        <p className="admin-note" role="status">
          Draft restored from {new Date(initial.restored.timestamp).toLocaleString()}.
          {initial.restored.fileCount > 0 && ` ${AdminText.draftFilesDropped}`}
        </p>
      )}
      <form
        className="form admin-post-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit(false);
        }}
      >
        <Field id={`${id}-title`} label="Title">
          <input
            id={`${id}-title`}
            ref={titleRef}
            value={values.title}
            aria-invalid={titleError ? true : undefined}
            aria-describedby={titleError ? `${id}-title-error` : undefined}
            onChange={(e) => {
              if (titleError && e.target.value.trim()) setTitleError(null);
              edit({ ...values, title: e.target.value });
            }}
          />
          <ErrorLine id={`${id}-title-error`} error={titleError} />
        </Field>
        <div className="field">
          {/* Names the editor (aria-labelledby); a contenteditable cannot be a label's `for`. */}
          <label id={`${id}-content`}>Content</label>
          <MarkdownEditor
            labelId={`${id}-content`}
            value={values.content}
            onChange={(content) => edit({ ...values, content })}
            media={media}
            onFiles={addFiles}
            postId={post?.id}
            handle={editorRef}
          />
        </div>
        <Field id={`${id}-tags`} label="Tags (comma-separated)">
          <input
            id={`${id}-tags`}
            value={values.tags}
            onChange={(e) => edit({ ...values, tags: e.target.value })}
          />
        </Field>
        <div className="admin-form-row">
          <Field id={`${id}-category`} label="Category">
            <select
              id={`${id}-category`}
              value={values.category}
              onChange={(e) => edit(withCategory(values, site, e.target.value))}
            >
              {site.categories.map((c) => (
                <option key={c.label}>{c.label}</option>
              ))}
            </select>
          </Field>
          <Field id={`${id}-submenu1`} label="Submenu">
            <select
              id={`${id}-submenu1`}
              value={values.submenu1}
              onChange={(e) => edit(withSubmenu1(values, site, e.target.value))}
            >
              {level1.map((label) => (
                <option key={label}>{label}</option>
              ))}
            </select>
          </Field>
          {level2.length > 0 && (
            <Field id={`${id}-submenu2`} label="Sub-submenu">
              <select
                id={`${id}-submenu2`}
                value={values.submenu2}
                onChange={(e) => edit({ ...values, submenu2: e.target.value })}
              >
                {level2.map((label) => (
                  <option key={label}>{label}</option>
                ))}
              </select>
            </Field>
          )}
        </div>
        <DateTimePicker value={values} onChange={(next) => edit({ ...values, ...next })} />
        <Field id={`${id}-status`} label="Status">
          <select
            id={`${id}-status`}
            value={values.status}
            aria-describedby={`${id}-status-note`}
            onChange={(e) => edit({ ...values, status: e.target.value === 'draft' ? 'draft' : 'published' })}
          >
            <option value="published">Published</option>
            <option value="draft">Draft</option>
          </select>
          <p id={`${id}-status-note`} className="admin-status-note" role="status">
            {values.status === 'draft'
              ? 'Only you can see a draft.'
              : scheduled
                ? `Scheduled for ${formatDateTime(scheduled.toISOString())}`
                : null}
          </p>
        </Field>
        <PostEmailOptions
          post={post}
          checked={values.sendByEmail ?? false}
          onChange={(sendByEmail) => edit({ ...values, sendByEmail })}
        />
        <PostCommentOptions id={id} postId={post?.id ?? null} />
        <MediaArea
          media={media}
          errors={mediaErrors}
          onFiles={addFiles}
          onYoutube={addLink}
          onMove={(from, to) => editMedia((items) => moveMedia(items, from, to))}
          onRemove={(key) => editMedia((items) => removeMedia(items, key))}
          onCrop={() => setCropOpen(true)}
          onRetry={(key) => void retryItem(key)}
          onDescribe={(key, field, value) => editMedia((items) => describeMedia(items, key, field, value))}
          onInsert={(key) => {
            const item = media.find((m) => m.key === key);
            if (item) editorRef.current?.insertMedia(item);
          }}
          retrying={retryingItem}
          hasCrop={crop !== null}
        />
        {crop && main && (
          <p className="admin-hint">
            Main image crop: zoom {crop.scale}x, offset {crop.x}, {crop.y}.
          </p>
        )}
        {saveError && <ErrorLine error={saveError.form} />}
        <div className="admin-actions">
          <SubmitButton pending={upload !== null}>{isNew ? 'Create Post' : 'Update Post'}</SubmitButton>
          {saveError?.canRetry && (
            <button type="button" className="button button-secondary" onClick={() => submit(true)}>
              Retry
            </button>
          )}
          {isNew && (
            <button type="button" className="button button-secondary" onClick={saveNow}>
              Save Draft
            </button>
          )}
          <button
            type="button"
            className="button button-secondary"
            onClick={onCancel}
            disabled={upload !== null}
          >
            Cancel
          </button>
          {isNew && (
            <span className="admin-autosave" role="status">
              {autosave === 'saving' && 'Saving...'}
              {autosave === 'saved' && AdminText.savedLocally}
              {autosave === 'failed' && AdminText.saveFailed}
            </span>
          )}
        </div>
      </form>
      {upload && <UploadOverlay upload={upload} />}
      {cropOpen && cropSrc && (
        <CropDialog
          src={cropSrc}
          initial={crop}
          onApply={(next) => {
            setCrop(next);
            setChanges((n) => n + 1);
            setCropOpen(false);
          }}
          onClose={() => setCropOpen(false)}
        />
      )}
      {heicMessage && (
        <Modal title={AdminText.unsupportedTitle} onClose={() => setHeicMessage(null)}>
          <p>{heicMessage}</p>
          <div className="admin-actions">
            <button type="button" className="button" onClick={() => setHeicMessage(null)}>
              OK
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}

/** The widest processed picture (in the image's own format) for the crop dialog. */
function largestPicture(item: NonNullable<PostView['media'][number]>): string | null {
  if (item.status !== 'ready') return null;
  const widest = [...(item.variants ?? [])]
    .filter((v) => v.format !== 'avif')
    .sort((a, b) => b.width - a.width)[0];
  return widest?.path ?? item.path ?? null;
}
