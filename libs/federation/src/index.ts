// The blog in the fediverse (issue 30): Fedify's federation, its stores and loaders, shared by the
// gateway (the HTTP edge) and services/social (followers and delivery).
export const FEDERATION_ACTOR_IDENTIFIER = 'blog';
export * from './ports.js';
