/**
 * Runtipi's platform variables (APP_DATA_DIR, APP_PORT, APP_DOMAIN, TZ…) as Kade's own values: the app's data
 * folder, a field Kade asks for, or a fixed text.
 */
import type { TemplateFieldT } from '../../../shared/template.ts';
import { ownerIdField, tzField } from './portainer-common.ts';
import type { Part } from './portainer-emit.ts';
import { Vars } from './source-compose.ts';

/** The variables of a Runtipi app: its platform's mapped here, its form's (`declared`) as declared. */
export function runtipiVars(declared: Map<string, TemplateFieldT>, notes: Set<string>, port: number | undefined): Vars {
  const vars: Vars = new Vars((name) => platformParts(name, { vars, notes, port }), declared);
  return vars;
}

interface PlatformCtx {
  vars: Vars;
  notes: Set<string>;
  /** config.json's port: the default of the web port field. */
  port: number | undefined;
}

const webPortField = (port: number | undefined): TemplateFieldT => ({
  id: 'app_port',
  label: { en: 'Web interface port', nl: 'Poort van de webinterface' },
  type: 'port',
  required: true,
  secret: false,
  advanced: false,
  ...(port !== undefined ? { default: port } : {}),
});

const text = (id: string, en: string, nl: string, def: string): TemplateFieldT => ({
  id,
  label: { en, nl },
  type: 'text',
  required: true,
  secret: false,
  advanced: true,
  default: def,
});

const protocolField = (): TemplateFieldT => ({
  id: 'app_protocol',
  label: { en: 'Protocol', nl: 'Protocol' },
  type: 'select',
  required: true,
  secret: false,
  advanced: true,
  default: 'http',
  options: [
    { value: 'http', label: 'http' },
    { value: 'https', label: 'https' },
  ],
});

/** A platform variable's parts; null for a variable that is not the platform's. */
function platformParts(name: string, c: PlatformCtx): Part[] | null {
  const field = (f: TemplateFieldT): Part[] => [{ field: c.vars.add(f).id }];
  switch (name) {
    case 'APP_DATA_DIR':
      return [{ field: 'appdata_dir' }];
    case 'ROOT_FOLDER_HOST':
      c.notes.add("ROOT_FOLDER_HOST (Runtipi's own folder) is the app's data folder");
      return [{ field: 'appdata_dir' }];
    case 'APP_PORT':
      return field(webPortField(c.port));
    case 'APP_DOMAIN':
    case 'LOCAL_DOMAIN':
      return field(text('app_domain', 'Domain name', 'Domeinnaam', 'localhost'));
    case 'APP_HOST':
    case 'INTERNAL_IP':
    case 'DNS_IP':
      return field(text('app_host', 'Host address', 'Hostadres', '127.0.0.1'));
    case 'APP_PROTOCOL':
      return field(protocolField());
    case 'APP_ID':
      return field(text('app_id', 'App id', 'App-id', '{name}'));
    case 'APP_EXPOSED':
      return [{ lit: 'false' }];
    case 'NETWORK_INTERFACE':
      return [{ lit: '0.0.0.0' }];
    case 'TZ':
      return field(tzField());
    case 'PUID':
    case 'PGID':
      return field(ownerIdField(name === 'PUID' ? 'puid' : 'pgid'));
    default:
      return null;
  }
}
