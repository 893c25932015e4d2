import type { enDoctor } from './en-doctor.ts';

/** Dutch messages of the Diagnostics screen; merged into `nl` in nl.ts. */
export const nlDoctor: Record<keyof typeof enDoctor, string> = {
  'nav.doctor': 'Diagnose',

  'doctor.title': 'Diagnose',
  'doctor.intro':
    'Kade controleert zijn eigen installatie: de engine, zijn container, of BASE_DIR echt gekoppeld is, zijn account, vrije ruimte, de mappen die het gebruikt en de winkel. Bij elke bevinding staat wat er mis is en met welk commando je het oplost. Op de server doet sh install.sh --doctor dezelfde controles, plus die alleen de host kan doen.',
  'doctor.run_again': 'Opnieuw controleren',
  'doctor.running': 'Bezig met controleren…',
  'doctor.summary_ok': 'Geen fouten gevonden.',
  'doctor.summary_errors': '{count} fout(en) gevonden.',
  'doctor.summary_warnings': '{count} waarschuwing(en).',
  'doctor.status.ok': 'In orde',
  'doctor.status.warn': 'Waarschuwing',
  'doctor.status.error': 'Fout',
  'doctor.fix': 'Oplossing:',
  'doctor.copy': 'Kopiëren',
  'doctor.copied': 'Gekopieerd',
  'doctor.copy_failed': 'Kopiëren lukte niet; selecteer de tekst zelf',
  'doctor.check.engine': 'Container-engine',
  'doctor.check.own_container': 'Kades eigen container',
  'doctor.check.mount': 'Gekoppelde map',
  'doctor.check.account': 'Account (SVC_UID)',
  'doctor.check.disk': 'Vrije ruimte',
  'doctor.check.paths': 'Map in gebruik',
  'doctor.check.stacks': 'Apps onder LIBRARY_DIR',
  'doctor.check.app_files': 'Bestanden waarmee Kade de apps draait',
  'doctor.check.store': 'Winkelcache',
  'doctor.check.other': 'Controle',
};
