import { Injectable } from '@nestjs/common';
import type { Patterns, RpcParsedRequest } from '@blog/contracts';
import { BlocksService } from '../blocks/blocks.service.js';
import { requiredHttpUrl } from '../followers/remote-links.js';
import { ReactionsRepository } from './reactions.repository.js';

/** Likes and announces of the blog's posts and notes, counted once per activity id. */
@Injectable()
export class ReactionsService {
  constructor(
    private readonly reactions: ReactionsRepository,
    private readonly blocks: BlocksService,
  ) {}

  async add(command: RpcParsedRequest<typeof Patterns.social.reaction>) {
    const activityId = requiredHttpUrl(command.activityId, 'activityId');
    const actorUri = requiredHttpUrl(command.actorUri, 'actorUri');
    await this.blocks.assertNotBlocked(actorUri);
    const subject = command.postId !== undefined ? { postId: command.postId } : { noteId: command.noteId! };
    return {
      recorded: await this.reactions.add({ ...subject, kind: command.kind, activityId, actorUri }),
    };
  }

  counts(postIds: number[]) {
    return this.reactions.countsByPost(postIds);
  }

  noteCounts(noteIds: number[]) {
    return this.reactions.countsByNote(noteIds);
  }

  async undo(command: RpcParsedRequest<typeof Patterns.social.undoReaction>) {
    return { removed: await this.reactions.remove(command.activityId, command.actorUri) };
  }
}
