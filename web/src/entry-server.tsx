import type { PageRenderRequest, PageRenderResult, RenderPage } from '@blog/contracts/preloaded';
import { StrictMode, type ReactNode } from 'react';
import { prerender } from 'react-dom/static';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom';
import { createApiClient } from './api/client';
import { AppProviders } from './AppProviders';
import { aboutAction } from './features/about/aboutAction';
import type { TreeData } from './loaders';
import { CLIENT_ONLY, createRoutes } from './routes';
import type { SessionStore } from './session/store';
import { createSiteStore } from './site/siteStore';

/**
 * The whole page as one string, once everything in it is ready (the carousel's code loads on
 * demand). Every part stays in place, however large (React would otherwise move a large part
 * after the page with an inline script to put it back, which the CSP refuses).
 */
async function renderComplete(element: ReactNode): Promise<string> {
  const { prelude } = await prerender(element, { progressiveChunkSize: Number.POSITIVE_INFINITY });
  return new Response(prelude).text();
}

/** The server renders as a guest: a session lives in the browser's storage only. */
const noSession: SessionStore = { get: () => null, set() {}, clear() {}, subscribe: () => () => {} };

/**
 * The gateway's renderer of public pages (built by `vite build --ssr` into web/dist-ssr, with
 * React and react-router inside, so the server needs no front-end packages installed): runs
 * the matched routes' loaders (and a posted form's action), then renders the page.
 */
export const render: RenderPage = async (input: PageRenderRequest): Promise<PageRenderResult> => {
  const api = createApiClient({
    session: noSession,
    onUnauthorized: () => {},
    baseUrl: input.apiBase,
    fetch: (url, init) =>
      fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...input.apiHeaders } }),
  });
  const site = createSiteStore(api, input.site);
  const deps = { api, site };
  const handler = createStaticHandler(createRoutes(deps, { about: aboutAction(deps) }));
  const request = new Request(input.url, {
    method: input.method,
    body: input.method === 'POST' ? input.form : undefined,
  });
  const context = await handler.query(request);
  if (context instanceof Response) {
    const location = context.headers.get('Location');
    if (location) return { kind: 'redirect', status: context.status, location };
    throw new Error(`The page's loaders answered ${context.status} without a location`);
  }
  // A loader that threw (the site configuration could not be read): the browser draws the page.
  if (context.errors) throw new Error('A route loader failed');
  if (context.matches.some((match) => match.route.handle === CLIENT_ONLY))
    return { kind: 'client', preloaded: { rendered: false, loaderData: context.loaderData } };

  const router = createStaticRouter(handler.dataRoutes, context);
  const markup = await renderComplete(
    <StrictMode>
      <AppProviders session={noSession} api={api} site={site}>
        <StaticRouterProvider router={router} context={context} hydrate={false} />
      </AppProviders>
    </StrictMode>,
  );
  const tree = context.loaderData.tree as TreeData | undefined;
  return {
    kind: 'page',
    status: context.statusCode,
    markup,
    preloaded: { rendered: true, loaderData: context.loaderData, actionData: context.actionData },
    post: tree?.kind === 'post' ? tree.post : null,
  };
};
