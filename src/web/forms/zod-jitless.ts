import { config } from 'zod';

// zod compiles object parsers with new Function unless told not to, and the page's CSP forbids eval.
// Imported before any schema module, since zod decides this when a schema is built.
config({ jitless: true });
