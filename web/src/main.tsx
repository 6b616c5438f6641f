import { PRELOADED_ELEMENT_ID, type PreloadedData } from '@blog/contracts/preloaded';
import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { RouterProvider, createBrowserRouter } from 'react-router-dom';
import { createApiClient, isSignInPath } from './api/client';
import { AppProviders } from './AppProviders';
import type { RootData } from './loaders';
import { loadPartsIn } from './lib/onDemand';
import { createRoutes } from './routes';
import { createSessionStore } from './session/store';
import { createSiteStore } from './site/siteStore';
import './styles.css';

// The loaders' data the server wrote into the page (absent when served without it, as by `vite dev`).
const preloadedText = document.getElementById(PRELOADED_ELEMENT_ID)?.textContent;
const preloaded = preloadedText ? (JSON.parse(preloadedText) as PreloadedData) : null;
// Reading the session here, before the first render, drops a stale one at start (docs/product.md#how-the-screens-behave).
const session = createSessionStore(window.localStorage);
const api = createApiClient({
  session,
  onUnauthorized: () => {
    if (!isSignInPath(window.location.pathname)) void router.navigate('/login', { replace: true });
  },
});
const site = createSiteStore(api, (preloaded?.loaderData.root as RootData | undefined)?.site ?? null);
const router = createBrowserRouter(createRoutes({ api, site }), {
  hydrationData: preloaded
    ? { loaderData: preloaded.loaderData, actionData: preloaded.actionData ?? null }
    : undefined,
});

const container = document.getElementById('root')!;

const app = (
  <StrictMode>
    <AppProviders session={session} api={api} site={site}>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>
);

/**
 * Hydrates the server's HTML. It must draw what the server drew, so the code of the page's parts
 * comes first; if it cannot be fetched, the page stays as the server sent it (readable, its
 * links and forms working) rather than being drawn again without them.
 */
async function hydrate() {
  await loadPartsIn(container);
  // The server's HTML is already on screen: hydrating it as a transition lets the browser
  // answer input between slices of the work instead of blocking for all of it.
  startTransition(() => {
    hydrateRoot(container, app);
  });
  // The server renders what a guest sees; an admin also sees drafts and unprocessed media.
  if (session.get()?.role === 'admin') void router.revalidate();
}

if (preloaded?.rendered) {
  hydrate().catch((error: unknown) => console.error('The page stays as the server sent it', error));
} else {
  createRoot(container).render(app);
}
