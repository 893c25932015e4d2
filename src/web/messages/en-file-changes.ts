/** English messages shown when an app's files change under an open form or editor (issue 24 item 17); merged into `en` in en.ts. */
export const enFileChanges = {
  'configure.files_changed': "The app's files changed (a restore, an edit or a change by someone else): the form now shows the values they hold.",
  'appview.file.changed_under': 'This file changed since you opened it (a restore, an edit or a change by someone else). Your edit is still here.',
  'appview.file.load_new': 'Discard my edit and load the new text',
} as const;
