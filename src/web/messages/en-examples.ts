/** English messages of the first steps: the example apps offered by the setup wizard; merged into `en` in en.ts. */
export const enExamples = {
  'wizard.examples_text': "Kade's own example apps are in its public repository, {url}, in the folder {folder}.",
  'wizard.examples_use': 'Use the example apps',
  'wizard.examples_local':
    'No internet here, or Kade runs from a checkout? Run npm run examples:serve in that checkout and use the address it prints, branch main, folder apps.',
} as const;
