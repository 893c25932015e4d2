import { useEffect, useMemo, useState } from 'preact/hooks';
import type { StackT } from '../../shared/api.ts';
import type { PortBindingLike } from '../../shared/connect.ts';
import type { TemplateFileT } from '../../shared/template.ts';
import { getStackDetail } from './forms-api.ts';

/** An installed app that a connect field may point at, with the ports its containers publish (null while unknown). */
export interface Instance {
  name: string;
  ports: readonly PortBindingLike[] | null;
}

const connectApps = (t: TemplateFileT | null): Set<string> => {
  const apps = new Set<string>();
  if (!t) return apps;
  for (const f of [...t.fields, ...t.groups.flatMap((g) => g.fields)]) if (f.connect) apps.add(f.connect.app);
  return apps;
};

/**
 * The installed instances per app id for the template's connect fields, with the ports each one
 * publishes (one GET /api/stacks/<name> per instance, only for apps a connect field names).
 */
export function useInstances(stacks: readonly StackT[], template: TemplateFileT | null): (app: string) => Instance[] {
  const apps = useMemo(() => connectApps(template), [template]);
  const wanted = useMemo(() => stacks.filter((s) => s.source && apps.has(s.source.app)), [stacks, apps]);
  const [ports, setPorts] = useState<Record<string, PortBindingLike[]>>({});
  const key = wanted.map((s) => s.name).join(',');
  useEffect(() => {
    let live = true;
    for (const s of wanted) {
      getStackDetail(s.name).then(
        (d) => live && setPorts((old) => ({ ...old, [s.name]: d.containers.flatMap((c) => c.ports) })),
        () => live && setPorts((old) => ({ ...old, [s.name]: [] })),
      );
    }
    return () => {
      live = false;
    };
  }, [key]);
  return (app: string) => wanted.filter((s) => s.source?.app === app).map((s) => ({ name: s.name, ports: ports[s.name] ?? null }));
}
