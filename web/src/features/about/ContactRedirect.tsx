import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';

/** Delay before scrolling to the contact form (SPEC.md §9). */
export const CONTACT_SCROLL_DELAY_MS = 100;

/** /contact: goes to /about, then after 100 ms scrolls smoothly to the contact form (SPEC.md §2). */
export function ContactRedirect() {
  const navigate = useNavigate();
  useEffect(() => {
    navigate('/about', { replace: true, state: { scrollTo: 'contact' } });
  }, [navigate]);
  return null;
}
