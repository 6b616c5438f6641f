import { FedifyStores1765000000000, FedifyQueues1765400000000 } from '@blog/federation';
import { CreateSocial1765100000000 } from './1765100000000-CreateSocial.js';
import { CreateDeliveryFailures1765200000000 } from './1765200000000-CreateDeliveryFailures.js';
import { RemoteActorHttpLinks1765330000000 } from './1765330000000-RemoteActorHttpLinks.js';
import { OwnerFediverse1765600000000 } from './1765600000000-OwnerFediverse.js';
import { FediverseInterop1765800000000 } from './1765800000000-FediverseInterop.js';
import { NoteReactions1765900000000 } from './1765900000000-NoteReactions.js';

/** The social schema's migrations in the order they run: the service at start, a restore up to a backup's. */
export const MIGRATIONS = [
  FedifyStores1765000000000,
  CreateSocial1765100000000,
  CreateDeliveryFailures1765200000000,
  RemoteActorHttpLinks1765330000000,
  FedifyQueues1765400000000,
  OwnerFediverse1765600000000,
  FediverseInterop1765800000000,
  NoteReactions1765900000000,
];
