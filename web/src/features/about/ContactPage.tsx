import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { AboutPage } from './AboutPage';

/**
 * /contact: the About page (the server renders it, so the form is there without JavaScript);
 * in the browser it then goes to /about and after 100 ms scrolls smoothly to the form (docs/product.md#screens).
 */
export function ContactPage() {
  const navigate = useNavigate();
  useEffect(() => {
    navigate('/about', { replace: true, state: { scrollTo: 'contact' } });
  }, [navigate]);
  return <AboutPage />;
}
