import { onDemand } from '../../lib/onDemand';

/** Only About (and /contact) holds the contact and subscribe forms: their code loads with the page. */
export const aboutFormsPart = onDemand('#contact', () => import('./aboutForms'));
