// Part of `npm run build`, after tsc: dist/server/main.js becomes one bundled file (issue #18). Node's loader
// resolves, reads and compiles each ES module on its own; with some 400 of them (ours, zod's, hono's) that was
// most of the cold start. The other entries (doctor CLI, self-update helper) stay tsc's output beside it.
// Kept outside the bundle: the native better-sqlite3, and what Kade loads only when needed (dockerode, nodemailer).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/server/main.ts'],
  outfile: 'dist/server/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  external: ['better-sqlite3', 'dockerode', 'nodemailer'],
  // Bundled CommonJS packages (pino, yaml's deps) call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as kadeCreateRequire } from 'node:module';\nconst require = kadeCreateRequire(import.meta.url);" },
});
