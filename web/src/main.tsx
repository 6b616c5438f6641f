import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider, createBrowserRouter } from 'react-router-dom';
import { ApiProvider } from './api/ApiContext';
import { createApiClient, isSignInPath } from './api/client';
import { routes } from './routes';
import { SessionProvider } from './session/SessionContext';
import { SiteProvider } from './site/SiteContext';
import { createSessionStore } from './session/store';
import './styles.css';

// Reading the session here, before the first render, drops a stale one at start (SPEC.md §4).
const session = createSessionStore(window.localStorage);
const router = createBrowserRouter(routes);
const api = createApiClient({
  session,
  onUnauthorized: () => {
    if (!isSignInPath(window.location.pathname)) void router.navigate('/login', { replace: true });
  },
});

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <SessionProvider store={session}>
      <ApiProvider client={api}>
        <SiteProvider>
          <RouterProvider router={router} />
        </SiteProvider>
      </ApiProvider>
    </SessionProvider>
  </StrictMode>,
);
