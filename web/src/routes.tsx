import { lazy, Suspense, type ReactNode } from 'react';
import { type ActionFunction, type RouteObject } from 'react-router-dom';
import { Layout, RootError } from './components/Layout';
import { AboutPage } from './features/about/AboutPage';
import { ContactPage } from './features/about/ContactPage';
import { HomePage } from './features/posts/HomePage';
import { TreePage } from './features/category/TreePage';
import { SearchResults } from './features/search/SearchResults';
import {
  aboutLoader,
  homeLoader,
  postIdLoader,
  rootLoader,
  rootShouldRevalidate,
  treeLoader,
  type LoaderDeps,
} from './loaders';

// Sign-in screens and the admin area load on demand: the validation schemas, the crop and
// drag-and-drop libraries never reach a visitor who only reads.
const LoginPage = lazy(() => import('./features/auth/LoginPage').then((m) => ({ default: m.LoginPage })));
const RegisterPage = lazy(() =>
  import('./features/auth/RegisterPage').then((m) => ({ default: m.RegisterPage })),
);
const AccountPage = lazy(() =>
  import('./features/account/AccountPage').then((m) => ({ default: m.AccountPage })),
);
const AdminPage = lazy(() => import('./features/admin/AdminPage').then((m) => ({ default: m.AdminPage })));
// The guards too: a reader never needs them; a guest is sent to /login before the admin's code loads.
const RequireAdmin = lazy(() =>
  import('./components/RequireAdmin').then((m) => ({ default: m.RequireAdmin })),
);
const RequireSignedIn = lazy(() =>
  import('./components/RequireAdmin').then((m) => ({ default: m.RequireSignedIn })),
);

const loading = (element: ReactNode) => (
  <Suspense
    fallback={
      <p role="status" className="loading">
        Loading...
      </p>
    }
  >
    {element}
  </Suspense>
);

/** Route handle of the screens drawn only in the browser (the server sends them the bare shell). */
export const CLIENT_ONLY = { clientOnly: true } as const;

/**
 * Forms posted without JavaScript reach only the server: the browser's forms call the API
 * themselves. The server's renderer passes these in, so the browser's bundle never holds them.
 */
export interface ServerActions {
  about?: ActionFunction;
}

/**
 * The one set of routes, for the server's render and the browser (docs/product.md#screens). Fixed routes
 * first; every other path (sections, sub-sections, model pages, posts, unknown paths) is
 * resolved against the category tree by the tree route, so renaming a category renames its pages.
 */
export function createRoutes(deps: LoaderDeps, server: ServerActions = {}): RouteObject[] {
  return [
    {
      id: 'root',
      element: (
        <Layout
          searchResults={(search) => (
            <SearchResults key={search.query} query={search.query} posts={search.posts} />
          )}
        />
      ),
      errorElement: <RootError />,
      loader: rootLoader(deps),
      shouldRevalidate: rootShouldRevalidate,
      children: [
        { id: 'home', index: true, element: <HomePage />, loader: homeLoader(deps) },
        { path: 'login', element: loading(<LoginPage />), handle: CLIENT_ONLY },
        { path: 'register', element: loading(<RegisterPage />), handle: CLIENT_ONLY },
        {
          path: 'admin/*',
          element: loading(<RequireAdmin>{loading(<AdminPage />)}</RequireAdmin>),
          handle: CLIENT_ONLY,
        },
        {
          path: 'account',
          element: loading(<RequireSignedIn>{loading(<AccountPage />)}</RequireSignedIn>),
          handle: CLIENT_ONLY,
        },
        {
          id: 'about',
          path: 'about',
          element: <AboutPage />,
          loader: aboutLoader,
          action: server.about,
        },
        { id: 'contact', path: 'contact', element: <ContactPage />, loader: aboutLoader },
        { id: 'post-id', path: 'post/:id', loader: postIdLoader(deps) },
        { id: 'tree', path: '*', element: <TreePage />, loader: treeLoader(deps) },
      ],
    },
  ];
}
