// Part of `npm run build`, after tsc: dist/server/main.js becomes one bundled file (issue #18). Node's loader
// resolves, reads and compiles each ES module on its own; with some 400 of them (ours, zod's, hono's) that was
// most of the cold start. The other entries (doctor CLI, self-update helper) stay tsc's output beside it.
// Kept outside the bundle: the native better-sqlite3, nodemailer (loaded only when needed), and dockerode, which
// nothing of the server imports (a devDependency, for the tests and the bench): an import of it would fail in the
// image, and show in dockerode-lazy.int.test.ts, instead of being bundled unnoticed.
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

/**
 * zod's 40-odd message locales are ~350 KB of the bundle, parsed at every start, reachable only through its
 * `locales` export; Kade writes its own messages and uses zod's English default only. (node:http2, which
 * @hono/node-server imports, is left alone: node's fetch classes, which hono needs, load it anyway.)
 */
const zodEnglishOnly = {
  name: 'kade-zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (a) =>
      a.importer.includes('/node_modules/zod/') ? { path: 'zod-locales', namespace: 'kade-trim', pluginData: join(a.resolveDir, dirname(a.path)) } : undefined,
    );
    b.onLoad({ filter: /^zod-locales$/, namespace: 'kade-trim' }, (a) => ({
      contents: "export { default as en } from './en.js';\n",
      resolveDir: a.pluginData,
      loader: 'js',
    }));
  },
};

await build({
  entryPoints: ['src/server/main.ts'],
  outfile: 'dist/server/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  legalComments: 'none',
  // Less to parse at every start (~10 ms of it measured); names stay, so stack traces read as before.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  external: ['better-sqlite3', 'dockerode', 'nodemailer'],
  plugins: [zodEnglishOnly],
  // Bundled CommonJS packages (pino, yaml's deps) call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as kadeCreateRequire } from 'node:module';\nconst require = kadeCreateRequire(import.meta.url);" },
});
