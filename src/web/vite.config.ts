import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../../dist/web', import.meta.url));

/**
 * Builds the browser interface. There is no Preact preset for Vite 8, so the
 * automatic JSX runtime is pointed at Preact here; the interface uses hooks
 * only, so no react-compat aliasing is needed.
 */
export default defineConfig({
  root: webRoot,
  base: '/',
  publicDir: 'public',
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  build: {
    outDir,
    emptyOutDir: true,
    // Assets get content hashes under /assets/, which the server caches as immutable.
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
  },
  server: {
    // During `vite` development the API runs separately on Kade's default port.
    proxy: { '/api': 'http://127.0.0.1:8420' },
  },
});
