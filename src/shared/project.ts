/** The project's public repository: Kade's source, and a template repo anyone can add (its example apps). */
export const PROJECT_REPO_URL = 'https://github.com/kade-app/kade.git';
/** Where the example apps are inside it (`npm run examples:serve` serves `examples/` itself: folder `apps`). */
export const EXAMPLES_SUBDIRECTORY = 'examples/apps';
