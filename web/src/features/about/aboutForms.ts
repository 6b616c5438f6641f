// The About page's forms, loaded on demand (aboutFormsPart.ts).
export { ContactForm } from './ContactForm';
export { SubscribeForm } from './SubscribeForm';
