import type { ExtraVolumeT, ReconfigureRequestT, ServiceChoicesT, StackConfigT } from '../../../../shared/stack-config.ts';
import type { TemplateFieldT, TemplateFileT } from '../../../../shared/template.ts';
import { buildSteps, type FormValues, missingIn, requestValues } from '../../../forms/install-model.ts';

/** The extras of one service as the form holds them: rows may be half filled while typing. */
export interface ServiceExtrasState {
  tag: string | null;
  volumes: ExtraVolumeT[];
  devices: string[];
}
export type ExtrasState = Record<string, ServiceExtrasState>;

/** The stored choices per service, as the form starts. */
export function startExtras(services: StackConfigT['services']): ExtrasState {
  const out: ExtrasState = {};
  for (const s of services) out[s.name] = { tag: s.tag, volumes: s.volumes.map((v) => ({ ...v })), devices: [...s.devices] };
  return out;
}

/** The tag of an image reference (`host:5000/a/b:tag` → `tag`, none → `latest`), or null when unknown or pinned by digest. */
export function tagOf(image: string | null): string | null {
  if (!image || image.includes('@')) return null;
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image.slice(colon + 1) : 'latest';
}

/** The address the server uses for one input of the extras in its `fields`, e.g. `services.web.volumes.0.host`. */
export const volumeField = (service: string, index: number, part: 'host' | 'container'): string => `services.${service}.volumes.${index}.${part}`;
export const deviceField = (service: string, index: number): string => `services.${service}.devices.${index}`;

/** Why an extra cannot be sent as it is: both paths of a folder are needed; the folder in the app is absolute, not `/`, without `:` or `,`; devices lie under /dev. */
export type ExtraProblem = 'required' | 'absolute' | 'device';

/** The rows the server would refuse (or a half-typed row would mean nothing), keyed by field address. */
export function extraProblems(extras: ExtrasState): Record<string, ExtraProblem> {
  const out: Record<string, ExtraProblem> = {};
  for (const [svc, e] of Object.entries(extras)) {
    e.volumes.forEach((v, i) => {
      if (v.host.trim() === '') out[volumeField(svc, i, 'host')] = 'required';
      const inside = v.container.trim();
      if (inside === '') out[volumeField(svc, i, 'container')] = 'required';
      else if (!inside.startsWith('/') || /^\/+$/.test(inside) || /[:,]/.test(inside)) out[volumeField(svc, i, 'container')] = 'absolute';
    });
    e.devices.forEach((d, i) => {
      if (!d.trim().startsWith('/dev/')) out[deviceField(svc, i)] = 'device';
    });
  }
  return out;
}

/**
 * Required fields without a value over every group (advanced ones too: the app needs them either way).
 * A secret the server keeps (hidden from this user) counts as filled.
 */
export function missingFields(t: TemplateFileT, values: FormValues, kept: ReadonlySet<string>): TemplateFieldT[] {
  const filled: FormValues = { ...values };
  for (const id of kept) filled[id] = 'kept';
  return buildSteps(t, true).flatMap((s) => missingIn(s, filled));
}

/**
 * The body of the reconfigure request: secrets the server keeps are left out, paths trimmed. A tag is
 * sent only when it was changed, so an untouched service keeps following whatever it followed.
 */
export function reconfigureBody(t: TemplateFileT, values: FormValues, kept: ReadonlySet<string>, extras: ExtrasState, start: ExtrasState): ReconfigureRequestT {
  const all = requestValues(t, values);
  const sent: FormValues = {};
  for (const [k, v] of Object.entries(all)) if (!kept.has(k)) sent[k] = v;
  const services: Record<string, ServiceChoicesT> = {};
  for (const [svc, e] of Object.entries(extras)) {
    services[svc] = {
      ...(e.tag === start[svc]?.tag ? {} : { tag: e.tag }),
      volumes: e.volumes.map((v) => ({ host: v.host.trim(), container: v.container.trim(), read_only: v.read_only })),
      devices: e.devices.map((d) => d.trim()),
    };
  }
  return { values: sent, services };
}
