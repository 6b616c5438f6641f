import { onDemand } from '../lib/onDemand';

/** Only post pages with media turn a carousel. */
export const carouselPart = onDemand('.carousel', () => import('./posts/MediaCarousel'));

/** Only About (and /contact) holds the contact and subscribe forms. */
export const aboutFormsPart = onDemand('#contact', () => import('./about/aboutForms'));
