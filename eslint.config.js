// typescript-eslint only for the promise rules Biome lacks; Biome does the rest.
import tseslint from 'typescript-eslint';

// ARCHITECTURE.md: screens never import each other; what two share lives in src/web/components/, forms/ or
// app-paths.ts. Import paths are matched as written, so there is one block per folder depth: a file `depth`
// folders below src/web/screens/ reaches that folder with `depth` times '../', and a name right after it is
// another screen (or routes.tsx); a path through a folder named screens/ is the long way there. Depth 5 is
// deeper than any screen goes.
const screensApart = [1, 2, 3, 4, 5].map((depth) => ({
  files: [`src/web/screens/${'*/'.repeat(depth)}*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./){${depth}}[^./]|/screens/`,
            message: 'Screens never import each other (ARCHITECTURE.md): move what both use to src/web/components/, forms/ or app-paths.ts.',
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/web/vite.config.ts'] },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'test/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  ...screensApart,
);
