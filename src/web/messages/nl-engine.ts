import type { enEngine } from './en-engine.ts';

/** Dutch messages of the engine restart; merged into `nl` in nl.ts. */
export const nlEngine: Record<keyof typeof enEngine, string> = {
  'engine_restart.title': 'Container-engine herstarten',
  'engine_restart.intro':
    'Herstart Docker op de server waar systemd het draait. De containers van alle apps stoppen zolang; die met een herstartbeleid starten weer, en Kade gaat verder waar het was.',
  'engine_restart.button': 'Engine herstarten…',
  'engine_restart.busy': 'Bezig met herstarten…',
  'engine_restart.running': 'De container-engine wordt herstart',
  'engine_restart.confirm_title': 'De container-engine nu herstarten?',
  'engine_restart.confirm_text':
    'Alle containers stoppen terwijl de engine herstart, ook Kade als het in een container draait. Apps zonder herstartbeleid blijven gestopt tot je ze start.',
  'engine_restart.confirm_yes': 'Engine herstarten',
  'engine_restart.not_systemd':
    "Kade kan de engine hier niet herstarten: systemd draait hem niet op deze host (PID 1 is '{pid1}'). Herstart hem op de host met het commando dat je systeem daarvoor gebruikt.",
  'engine_restart.no_unit':
    'Kade kan de engine hier niet herstarten: systemd heeft op deze host geen unit {unit}, dus de engine draait op een andere manier. Herstart hem op de host met het commando dat je systeem daarvoor gebruikt.',
  'engine_restart.image_missing':
    'Kade heeft voor zijn hulpcontainer het image {image} (SVC_PROBE_IMAGE) nodig en de engine heeft het niet: docker pull {image}',
};
