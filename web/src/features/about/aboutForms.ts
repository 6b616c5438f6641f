// The About page's forms, loaded on demand (features/pageParts.ts).
export { ContactForm } from './ContactForm';
export { SubscribeForm } from './SubscribeForm';
