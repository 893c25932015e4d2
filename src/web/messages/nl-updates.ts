import type { enUpdates } from './en-updates.ts';

/** Dutch messages of the apps' update state and checks; merged into `nl` in nl.ts. */
export const nlUpdates: Record<keyof typeof enUpdates, string> = {
  'age.just_now': 'zojuist',
  'updates.never_checked': 'Nog niet op updates gecontroleerd',
  'updates.checked.update': 'gecontroleerd {age}',
  'updates.checked.current': 'Bijgewerkt, gecontroleerd {age}',
  'updates.checked.unknown': 'Updatestatus onbekend, gecontroleerd {age}',
  'updates.check': 'Nu controleren',
  'updates.check_label': '{name} nu op updates controleren',
  'updates.checking': 'Bezig met controleren…',
  'updates.check_all': 'Alles op updates controleren',
  'updates.check_all_label': 'Alle apps op updates controleren',
  'updates.check_all_close': 'Sluiten',
  'updates.outcome.update': 'Er is een update beschikbaar.',
  'updates.outcome.current': 'Bijgewerkt.',
  'updates.outcome.no_images': 'Geen containers om te vergelijken: start de app eerst.',
  'updates.outcome.registry': 'De registry van {image} kon niet gevraagd worden: {detail}',
  'updates.outcome.local_build': '{image} is op deze server gebouwd: er is geen image in een registry om mee te vergelijken.',
  'updates.outcome.not_pulled': '{image} staat nog niet op deze server: start de app eerst.',
  'updates.outcome.invalid_ref': '{image} is geen imagenaam die een registry kent.',
  'updates.outcome.unknown': 'Kade kon niet vaststellen of er een update is.',
} as const;
