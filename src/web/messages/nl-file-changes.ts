import type { enFileChanges } from './en-file-changes.ts';

/** Dutch messages shown when an app's files change under an open form or editor; merged into `nl` in nl.ts. */
export const nlFileChanges: Record<keyof typeof enFileChanges, string> = {
  'configure.files_changed':
    'De bestanden van de app zijn gewijzigd (teruggezet, bewerkt of door iemand anders veranderd): het formulier toont nu de waarden die erin staan.',
  'appview.file.changed_under':
    'Dit bestand is gewijzigd sinds je het opende (teruggezet, bewerkt of door iemand anders veranderd). Je bewerking staat er nog.',
  'appview.file.load_new': 'Mijn bewerking weggooien en de nieuwe tekst laden',
} as const;
