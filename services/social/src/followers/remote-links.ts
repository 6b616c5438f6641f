import { HTTP_URL_REQUIRED, httpUrlOrNull, type RemoteActor } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';

/** A link a row cannot do without (an id, an inbox): an http(s) URL, else a 400 naming the field. */
export function requiredHttpUrl(value: string, field: string): string {
  const url = httpUrlOrNull(value);
  if (url === null) throw RpcError.badRequest(`${field}: ${HTTP_URL_REQUIRED}`, field);
  return url;
}

/**
 * A remote actor as it is stored: its id and inbox http(s) links (else refused), its profile
 * page, avatar and shared inbox kept only when they are (else null), whatever the caller checked.
 */
export function storedActor<A extends RemoteActor>(actor: A): A {
  return {
    ...actor,
    actorUri: requiredHttpUrl(actor.actorUri, 'actorUri'),
    inbox: requiredHttpUrl(actor.inbox, 'inbox'),
    url: httpUrlOrNull(actor.url),
    sharedInbox: httpUrlOrNull(actor.sharedInbox),
    iconUrl: httpUrlOrNull(actor.iconUrl),
  };
}
