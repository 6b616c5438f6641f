// The blog in the fediverse: Fedify's federation, its stores and loaders, shared by the
// gateway (the HTTP edge) and services/social (followers and delivery).
import './temporal.js';

export * from './ports.js';
export * from './loaders.js';
export * from './pg-stores.js';
export * from './federation.js';
export { replyTargetOf } from './reply-target.js';
