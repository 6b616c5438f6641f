// Who wrote what a reply answers: the Note's Mention names them and the reply is sent to them.
import './temporal.js';
import type { Context } from '@fedify/fedify';
import { isActor } from '@fedify/vocab';

/**
 * The author of the remote object `objectUri` (its actor URI and `user@host`), fetched through
 * the federation's loaders (the outbound policy); null when it cannot be fetched or names none.
 */
export async function replyTargetOf(
  ctx: Context<void>,
  objectUri: string,
): Promise<{ actorUri: string; handle: string } | null> {
  const object = await ctx.lookupObject(objectUri).catch(() => null);
  if (!object) return null;
  const author = isActor(object)
    ? object
    : await ctx.lookupObject(object.attributionId?.href ?? '').catch(() => null);
  if (!isActor(author) || !author.id || !author.preferredUsername) return null;
  return { actorUri: author.id.href, handle: `${author.preferredUsername}@${author.id.host}` };
}
