import {
  fediverseOf,
  isRpcErrorBody,
  type ArticleView,
  type FederatedNoteView,
  type RemoteCommentCreate,
  type SiteConfig,
} from '@blog/contracts';
import type { ArticleData, FederationPorts, NoteData, RemoteComment, SiteData } from '@blog/federation';
import type { INestApplicationContext } from '@nestjs/common';
import type { MediaClient } from './media-client.js';
import type { PostsClient } from './posts-client.js';
import { socialPorts } from './social-ports.js';

/** The site is read on every actor and webfinger request: a few seconds old is fine. */
const SITE_TTL_MS = 5_000;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The welcome text (plain text, paragraphs by blank lines) as the actor's summary HTML. */
export function summaryHtml(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

export function siteDataOf(site: SiteConfig, origin: string, postCount: number): SiteData {
  const fediverse = fediverseOf(site);
  const absolute = (path: string) => (path ? new URL(path, origin).href : null);
  return {
    origin,
    handle: fediverse.handle,
    title: site.title,
    summaryHtml: summaryHtml(site.welcome.text),
    iconUrl: absolute(fediverse.avatarImage),
    imageUrl: absolute(site.bannerImage),
    approveFollowers: fediverse.approveFollowers,
    postCount,
    postFormat: fediverse.postFormat,
    quotePolicy: fediverse.quotePolicy,
    alsoKnownAs: fediverse.alsoKnownAs,
    movedTo: fediverse.movedTo || null,
    indexable: fediverse.indexable,
    discoverable: fediverse.discoverable,
    showFollowing: fediverse.showFollowing,
  };
}

export function articleDataOf(view: ArticleView): ArticleData {
  return {
    id: view.id,
    title: view.title,
    html: view.html,
    excerpt: view.excerpt,
    url: view.url,
    published: new Date(view.published),
    updated: view.updated ? new Date(view.updated) : null,
    tags: view.tags,
    images: view.images,
    replies: view.replies,
  };
}

export function noteDataOf(view: FederatedNoteView): NoteData {
  return {
    uri: view.uri,
    url: view.url,
    html: view.html,
    published: new Date(view.published),
    updated: view.updated ? new Date(view.updated) : null,
    inReplyTo: view.inReplyTo,
    mention: view.mention,
    images: view.images ?? [],
  };
}

/** Posts refused the write for good (no such post, a reply too long, not the author): no retry helps. */
const refused = (error: unknown) => isRpcErrorBody(error) && error.status >= 400 && error.status < 500;
async function unlessRefused(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!refused(error)) throw error; // the inbox queue tries it again later
  }
}

function remoteCreateOf(comment: RemoteComment, avatarKey: string | null): RemoteCommentCreate {
  return {
    inReplyTo: comment.inReplyToUri,
    remoteObjectId: comment.objectUri,
    actor: {
      uri: comment.actor.uri,
      name: comment.actor.name ?? '',
      handle: comment.actor.handle,
      url: comment.actor.url,
      avatarKey,
    },
    html: comment.html,
    published: comment.published.toISOString(),
  };
}

/**
 * Every port the federation needs in this service: the social ones on its own services, the
 * site, Articles and comments on the posts service.
 */
export function blogPorts(
  app: Pick<INestApplicationContext, 'get'>,
  clients: { posts: PostsClient; media: Pick<MediaClient, 'cacheAvatar'> },
  origin: string,
): FederationPorts {
  const { posts, media } = clients;
  let cached: { at: number; site: Promise<SiteData> } | undefined;
  const site = (): Promise<SiteData> => {
    if (cached && Date.now() - cached.at < SITE_TTL_MS) return cached.site;
    const loading = Promise.all([posts.site(), posts.outbox(0, 1)]).then(([config, outbox]) =>
      siteDataOf(config, origin, outbox.total),
    );
    const entry = { at: Date.now(), site: loading };
    cached = entry;
    loading.catch(() => {
      if (cached === entry) cached = undefined; // a failed read is not kept
    });
    return loading;
  };

  return {
    ...socialPorts(app, { origin, approveFollowers: async () => (await site()).approveFollowers }),
    site,
    articles: {
      async byPostId(id) {
        const answer = await posts.article(id);
        if (answer === null) return null;
        if ('gone' in answer) return 'gone';
        return articleDataOf(answer);
      },
      async outbox(offset, limit) {
        const page = await posts.outbox(offset, limit);
        return {
          items: page.items.map((item) => ({ id: item.id, published: new Date(item.published) })),
          total: page.total,
        };
      },
    },
    notes: {
      async byId(id) {
        const answer = await posts.federatedNote('note', id);
        if (answer === null) return null;
        if ('gone' in answer) return 'gone';
        return noteDataOf(answer);
      },
    },
    comments: {
      async create(comment) {
        const avatarKey = comment.actor.iconUrl ? await media.cacheAvatar(comment.actor.iconUrl) : null;
        await unlessRefused(posts.createComment(remoteCreateOf(comment, avatarKey)));
      },
      update: (comment) =>
        unlessRefused(
          posts.updateComment({
            remoteObjectId: comment.objectUri,
            actorUri: comment.actor.uri,
            html: comment.html,
          }),
        ),
      delete: (objectUri, actorUri) =>
        unlessRefused(posts.deleteComment({ remoteObjectId: objectUri, actorUri })),
    },
  };
}
