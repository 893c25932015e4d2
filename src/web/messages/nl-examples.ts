import type { enExamples } from './en-examples.ts';

/** Dutch messages of the first steps; merged into `nl` in nl.ts. */
export const nlExamples: Record<keyof typeof enExamples, string> = {
  'wizard.examples_text': 'De voorbeeldapps van Kade staan in zijn openbare repository, {url}, in de map {folder}.',
  'wizard.examples_use': 'Voorbeeldapps gebruiken',
  'wizard.examples_local':
    'Geen internet hier, of draait Kade vanuit een checkout? Voer in die checkout npm run examples:serve uit en gebruik het adres dat het toont, branch main, map apps.',
} as const;
