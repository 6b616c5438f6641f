import { lazy, Suspense, type ReactNode } from 'react';
import { type RouteObject } from 'react-router-dom';
import { Layout } from './components/Layout';
import { RequireAdmin, RequireSignedIn } from './components/RequireAdmin';
import { AboutPage } from './features/about/AboutPage';
import { ContactRedirect } from './features/about/ContactRedirect';
import { HomePage } from './features/posts/HomePage';
import { PostRedirect } from './features/posts/PostRedirect';
import { TreePage } from './features/category/TreePage';

// Sign-in screens and the admin area load on demand: the validation schemas, the crop and
// drag-and-drop libraries never reach a visitor who only reads.
const LoginPage = lazy(() => import('./pages/LoginPage').then((m) => ({ default: m.LoginPage })));
const RegisterPage = lazy(() => import('./pages/RegisterPage').then((m) => ({ default: m.RegisterPage })));
const AccountPage = lazy(() =>
  import('./features/account/AccountPage').then((m) => ({ default: m.AccountPage })),
);
const AdminPage = lazy(() => import('./features/admin/AdminPage').then((m) => ({ default: m.AdminPage })));

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

/**
 * Fixed routes of SPEC.md §2; every other path (sections, sub-sections, model pages, posts,
 * unknown paths) is resolved against the category tree by TreePage, so renaming a category
 * in config/site.json renames its pages.
 */
export const routes: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      { index: true, element: <HomePage /> },
      { path: 'login', element: loading(<LoginPage />) },
      { path: 'register', element: loading(<RegisterPage />) },
      {
        path: 'admin/*',
        element: <RequireAdmin>{loading(<AdminPage />)}</RequireAdmin>,
      },
      { path: 'account', element: <RequireSignedIn>{loading(<AccountPage />)}</RequireSignedIn> },
      { path: 'about', element: <AboutPage /> },
      { path: 'contact', element: <ContactRedirect /> },
      { path: 'post/:id', element: <PostRedirect /> },
      { path: '*', element: <TreePage /> },
    ],
  },
];
