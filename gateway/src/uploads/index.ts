export {
  uploadsMiddleware,
  uploadEtag,
  publicKeyFromPath,
  type UploadsMiddlewareOptions,
} from './uploads.middleware.js';
export { parseRange, etagMatches, type RangeRequest } from './range.js';
