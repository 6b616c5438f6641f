import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompress } from './precompress.ts';
import { routerTreeShaking } from './routerTreeShaking.ts';
import { readerFirstShell } from './shell.ts';

/** The gateway serves /api and /uploads; in development it listens on port 3000. */
const gateway = 'http://localhost:3000';
const proxy = {
  '/api': { target: gateway, changeOrigin: true },
  '/uploads': { target: gateway, changeOrigin: true },
};

// react-router's package exports point bundlers at its development build (warnings and
// checks included); a production build takes its production files, about 10 KB less to download.
const routerBuild = (file: string) =>
  fileURLToPath(new URL(`../node_modules/react-router/dist/production/${file}`, import.meta.url));

// `vite build --ssr` builds the gateway's page renderer (src/entry-server.tsx) into dist-ssr:
// React, react-router and the contracts go inside it, production builds only, so the app
// image needs no front-end packages and never runs React's development build.
export default defineConfig(({ mode, isSsrBuild }) => ({
  plugins: isSsrBuild
    ? [routerTreeShaking(), react()]
    : [routerTreeShaking(), react(), readerFirstShell(), precompress()],
  define: isSsrBuild ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
  ssr: { noExternal: true, target: 'node' },
  resolve: {
    alias:
      mode === 'production'
        ? [
            { find: /^react-router\/dom$/, replacement: routerBuild('dom-export.mjs') },
            { find: /^react-router$/, replacement: routerBuild('index.mjs') },
          ]
        : [],
  },
  build: isSsrBuild
    ? { outDir: 'dist-ssr', emptyOutDir: true, sourcemap: false, copyPublicDir: false }
    : {
        outDir: 'dist',
        emptyOutDir: true,
        sourcemap: true,
        // Every browser the site supports preloads modules itself: no polyfill in the bundle.
        modulePreload: false,
      },
  server: { proxy },
  preview: { proxy },
}));
