import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** The gateway serves /api and /uploads; in development it listens on port 3000. */
const gateway = 'http://localhost:3000';
const proxy = {
  '/api': { target: gateway, changeOrigin: true },
  '/uploads': { target: gateway, changeOrigin: true },
};

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy },
  preview: { proxy },
});
