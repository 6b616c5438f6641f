import { onDemand } from '../../lib/onDemand';

/** Only post pages with media turn a carousel: its code loads with such a page's data. */
export const carouselPart = onDemand('.carousel', () => import('./MediaCarousel'));
