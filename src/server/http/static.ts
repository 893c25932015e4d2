import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './context.ts';

// Placeholder until the web interface lands (helper owns this file).
export function serveWeb(app: OpenAPIHono<AppEnv>, _webDir: string): void {
  app.get('*', (c, next) => (c.req.path.startsWith('/api/') ? next() : c.text('web interface not built: run npm run build', 503)));
}
