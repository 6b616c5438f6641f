import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { usePageTitle } from '../../hooks/usePageTitle';
import { useSite } from '../../site/SiteContext';
import { aboutFormsPart } from './aboutFormsPart';
import { FollowOnMastodon } from '../../components/FediverseHandle';

/** Delay before scrolling to the contact form after /contact (docs/product.md#screens, #limits-and-timings). */
const CONTACT_SCROLL_DELAY_MS = 100;

/** About: the author's text, the contact form and the weekly-digest subscription (docs/product.md#screens). */
export function AboutPage() {
  const site = useSite();
  const location = useLocation();
  const scrollToContact = (location.state as { scrollTo?: string } | null)?.scrollTo === 'contact';
  usePageTitle();
  // The route's loader brought the forms' code.
  const forms = aboutFormsPart.get();

  // Arriving from /contact: after 100 ms, a smooth scroll to the form (docs/product.md#screens, #limits-and-timings).
  useEffect(() => {
    if (!scrollToContact) return;
    const timer = setTimeout(() => {
      const form = document.getElementById('contact');
      form?.scrollIntoView({ behavior: 'smooth', block: 'start' });
      form?.querySelector<HTMLInputElement>('input')?.focus({ preventScroll: true });
    }, CONTACT_SCROLL_DELAY_MS);
    return () => clearTimeout(timer);
  }, [scrollToContact, location.key]);

  return (
    <>
      <section className="card" aria-labelledby="about-heading">
        <h1 id="about-heading">{site.about.title}</h1>
        <p>{site.about.text}</p>
        <p className="privacy-note">
          This blog counts page views without cookies: it keeps which pages are read, the site that linked
          here, the kind of device and the country when known, never your address, your browser or anything
          else that identifies you; bots and browsers that ask not to be tracked (Do Not Track, Global Privacy
          Control) are not counted.
        </p>
      </section>
      <FollowOnMastodon variant="about" />
      {forms && <forms.ContactForm />}
      {forms && <forms.SubscribeForm />}
    </>
  );
}
