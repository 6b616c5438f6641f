import { Injectable } from '@nestjs/common';
import { actorHost, remoteActorSchema, type RemoteAccountView } from '@blog/contracts';
import type { RemoteFollower } from '@blog/federation';
import { parseOrThrow } from '@blog/server-kit';
import { MediaClient } from '../federation/media-client.js';
import { FollowersRepository, handleOf } from './followers.repository.js';
import { storedActor } from './remote-links.js';

/** How long a stored account is taken as stored when it comes again unchanged. */
const RECENT_ACTOR_MS = 10 * 60_000;
/** Accounts remembered so (the Map starts over when full). */
const RECENT_ACTORS_MAX = 10_000;

/** A remote account's row as the views read it. */
export interface AccountColumns {
  uri: string;
  handle: string | null;
  name: string | null;
  url: string | null;
  avatar_key: string | null;
}

/** A remote account as the dashboard shows it; its avatar is the blog's own copy. */
export function accountView(row: AccountColumns): RemoteAccountView {
  return {
    uri: row.uri,
    handle: handleOf(row),
    name: row.name,
    url: row.url,
    avatar: row.avatar_key ? `/uploads/${row.avatar_key}` : null,
  };
}

/**
 * Remote accounts the owner meets (followed, in the Reader, in notifications): stored as last
 * seen, with their avatar cached by the media service when its icon changed (never hot-linked).
 */
@Injectable()
export class RemoteActorsService {
  constructor(
    private readonly followers: FollowersRepository,
    private readonly media: MediaClient,
  ) {}

  /**
   * Accounts stored lately, as stored: a followed account's every post would otherwise write its
   * row again and read its avatar's state (two of a Reader entry's statements). Rows are never
   * deleted, so a remembered id stays good; a changed name or icon is stored at once.
   */
  private readonly recent = new Map<string, { seen: string; id: number; until: number }>();

  /** The account's row id. */
  async remember(actor: RemoteFollower): Promise<number> {
    const stored = storedActor(parseOrThrow(remoteActorSchema, actor));
    const seen = JSON.stringify(stored);
    const known = this.recent.get(stored.actorUri);
    if (known && known.seen === seen && known.until > Date.now()) return known.id;
    const id = await this.followers.saveActor(stored, actorHost(stored.actorUri));
    const avatar = await this.followers.avatarState(id);
    if (avatar.iconUrl !== avatar.avatarSource) {
      // A failed copy is not tried again until the icon changes: the account shows without one.
      const key = avatar.iconUrl ? await this.media.cacheAvatar(avatar.iconUrl) : null;
      await this.followers.setAvatar(id, key, avatar.iconUrl);
    }
    if (this.recent.size >= RECENT_ACTORS_MAX) this.recent.clear();
    this.recent.set(stored.actorUri, { seen, id, until: Date.now() + RECENT_ACTOR_MS });
    return id;
  }
}
