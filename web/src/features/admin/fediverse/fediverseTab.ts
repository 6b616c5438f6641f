import {
  ALSO_KNOWN_AS_MAX,
  FEDIVERSE_ACCOUNT_URI_ERROR,
  FEDIVERSE_ACCOUNT_URI_MAX,
  FEDIVERSE_AVATAR,
  FEDIVERSE_AVATAR_ERROR,
  FEDIVERSE_AVATAR_MAX,
  FEDIVERSE_HANDLE,
  FEDIVERSE_HANDLE_ERROR,
} from '@blog/contracts/site-settings';
import type { FediverseSettings } from '@blog/contracts/site';
import type { DeliveryFailureView } from '@blog/contracts/social';
import type { BlockAnswer } from './fediverseApi';

/** How many of a kind, in words: "1 follower", "2 followers", "no followers". */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n === 0 ? 'no' : n} ${n === 1 ? one : many}`;
}

/** What a block did, for the notification after it. */
export function blockDoneText(
  what: string,
  answer: Pick<BlockAnswer, 'removedFollowers' | 'removedComments'>,
) {
  const gone = [
    answer.removedComments > 0 ? countOf(answer.removedComments, 'comment') : null,
    answer.removedFollowers > 0 ? countOf(answer.removedFollowers, 'follower') : null,
  ].filter((part) => part !== null);
  return `${what} blocked.${gone.length > 0 ? ` Removed ${gone.join(' and ')}.` : ''}`;
}

/** Why deliveries to a server were given up, in plain words. */
export function deliveryProblemText(failure: Pick<DeliveryFailureView, 'reason' | 'statusCode'>): string {
  switch (failure.reason) {
    case 'gone': {
      const status = failure.statusCode === 404 ? '404 Not Found' : `${failure.statusCode ?? 410} Gone`;
      return `The server answered ${status}: its accounts are gone.`;
    }
    case 'expired':
      return 'Not reachable for 48 hours.';
    case 'dropped':
      return 'Too many failures in a row.';
  }
}

/** A block's target as a person reads it: the account's address, or the whole server. */
export function blockLabel(block: { actor: string | null; domain: string | null }): {
  kind: string;
  target: string;
} {
  return block.actor
    ? { kind: 'Account', target: block.actor }
    : { kind: 'Server', target: block.domain ?? '' };
}

/**
 * What a remote comment's author can be blocked by: the account (its actor id, when the
 * answer carries it) and its server (the actor's host; else the profile page's; else the
 * handle's). A local author (a reader of this site) has neither.
 */
export function blockTargetsOf(author: {
  local: boolean;
  handle: string | null;
  url: string | null;
  actorUri?: string | null;
}): { actor: string | null; domain: string | null } {
  if (author.local) return { actor: null, domain: null };
  const actor = author.actorUri ?? null;
  const domain =
    hostOf(actor) ?? hostOf(author.url) ?? author.handle?.match(/^@?[^@\s]+@([^@\s]+)$/)?.[1] ?? null;
  return { actor, domain: domain ? domain.toLowerCase() : null };
}

function hostOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

/** The Site tab's fediverse fields checked by the contract's rules (the server checks them again). */
export function fediverseFieldErrors(settings: FediverseSettings): {
  handle?: string;
  avatarImage?: string;
  alsoKnownAs?: string;
  movedTo?: string;
} {
  const errors: { handle?: string; avatarImage?: string; alsoKnownAs?: string; movedTo?: string } = {};
  if (!FEDIVERSE_HANDLE.test(settings.handle)) errors.handle = FEDIVERSE_HANDLE_ERROR;
  if (settings.avatarImage.length > FEDIVERSE_AVATAR_MAX || !FEDIVERSE_AVATAR.test(settings.avatarImage))
    errors.avatarImage = FEDIVERSE_AVATAR_ERROR;
  const aliases = settings.alsoKnownAs ?? [];
  if (aliases.length > ALSO_KNOWN_AS_MAX) errors.alsoKnownAs = `At most ${ALSO_KNOWN_AS_MAX} accounts`;
  else if (!aliases.every(isAccountUri)) errors.alsoKnownAs = FEDIVERSE_ACCOUNT_URI_ERROR;
  if (settings.movedTo && !isAccountUri(settings.movedTo)) errors.movedTo = FEDIVERSE_ACCOUNT_URI_ERROR;
  return errors;
}

/** An account's actor URL, as the server checks it (http or https, not too long). */
function isAccountUri(value: string): boolean {
  if (value.length > FEDIVERSE_ACCOUNT_URI_MAX) return false;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}
