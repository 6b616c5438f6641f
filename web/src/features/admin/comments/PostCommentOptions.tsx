import { useApi } from '../../../api/ApiContext';
import { getCommentSettings, getPostCommentSettings, savePostCommentSettings } from '../../../api/comments';
import { useAsync } from '../../../hooks/useAsync';
import { AutoApproveSwitch } from './AutoApproveSwitch';

/**
 * The post form's Comments options: the post's own "approve automatically from
 * known commenters", saved at once apart from the post. A new post has no id to hang it on
 * until its first save.
 */
export function PostCommentOptions({ id, postId }: { id: string; postId: number | null }) {
  const api = useApi();
  // The site-wide switch overrides this one when on: say so, so the box is not misread.
  const site = useAsync((signal) => getCommentSettings(api, signal), [api]);
  const siteOn = site.status === 'ready' && site.data.autoApproveKnown;
  return (
    <fieldset className="admin-post-comments">
      <legend>Comments</legend>
      {postId === null ? (
        <p className="admin-hint">The comment settings of this post can be set after its first save.</p>
      ) : (
        <AutoApproveSwitch
          id={`${id}-auto-approve`}
          label="Approve comments from known commenters automatically on this post"
          hint={
            <>
              Known: someone with an approved comment before. Saved at once, apart from the post.
              {siteOn && ' The site-wide switch (Comments tab) is on, so this post approves them either way.'}
            </>
          }
          load={(signal) => getPostCommentSettings(api, postId, signal)}
          save={(settings) => savePostCommentSettings(api, postId, settings)}
          deps={[api, postId]}
          saved={{
            on: 'Saved: on this post, comments from known commenters show at once.',
            off: siteOn
              ? 'Saved: off for this post (the site-wide switch still applies).'
              : 'Saved: on this post, new comments wait for your approval.',
          }}
        />
      )}
    </fieldset>
  );
}
