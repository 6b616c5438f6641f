import { Patterns } from '@blog/contracts';
import type { JsonLogger, ObjectStorage } from '@blog/server-kit';
import type { ServiceClients } from '../rpc/service-clients.js';

/** What a form write (a post's, a note's) needs to tidy up after the posts service answered. */
export interface UploadFollowupDeps {
  services: ServiceClients;
  storage: ObjectStorage;
  logger: JsonLogger;
}

/**
 * The files of a write the posts service refused go. When its outcome is unknown (the call was
 * delivered, the answer lost), only those no row references: the write may have stored them.
 */
export async function discardUploads(
  deps: UploadFollowupDeps,
  keys: string[],
  outcomeUnknown: boolean,
): Promise<void> {
  if (keys.length === 0) return;
  let unreferenced = keys;
  if (outcomeUnknown) {
    try {
      const referenced = new Set(await deps.services.call('posts', Patterns.posts.referencedKeys, { keys }));
      unreferenced = keys.filter((key) => !referenced.has(key));
    } catch {
      deps.logger.event('warn', 'kept uploads of a write with an unknown outcome', { keys });
      return;
    }
  }
  await deps.storage
    .deleteMany(unreferenced)
    .catch((error: Error) =>
      deps.logger.event('warn', 'could not delete uploads', { keys: unreferenced, reason: error.message }),
    );
}

/**
 * Asks the media service to process these items now, without waiting for it. A lost call only
 * delays processing: the media service re-enqueues pending items itself.
 */
export function enqueueMedia(deps: UploadFollowupDeps, ids: string[]): void {
  if (ids.length === 0) return;
  deps.services.call('media', Patterns.media.enqueue, { ids }).catch((error: Error) =>
    deps.logger.event('warn', 'media enqueue failed; the re-enqueue will pick it up', {
      ids,
      reason: error.message,
    }),
  );
}
