import type { StackCredentialsT } from '../../../shared/stack-config.ts';
import { englishText, type TemplateFieldT } from '../../../shared/template.ts';
import { requireRole } from '../../core/authorize.ts';
import type { Actor } from '../../core/events.ts';
import { envNameOf } from '../../templates/render.ts';
import { parseEnv } from '../store/env-file.ts';
import type { StackContext } from './stack-context.ts';

type Kind = 'username' | 'password' | 'other';

/** Detection by name, used only when the template marks no field `credential`. */
const USER = /(^|_)(user|username|login|email|account)$/i;
const PASSWORD = /(^|_)(password|passwd|pass|pw)$/i;
/** Of several candidates the login of a person wins over a database's. */
const PERSON = /admin|owner|login|web|ui|root/i;

interface Candidate {
  field: string;
  label: string;
  value: string;
  kind: Kind | 'url';
}

function detect(name: string): Kind | null {
  if (USER.test(name)) return 'username';
  if (PASSWORD.test(name)) return 'password';
  return null;
}

const best = (list: Candidate[], kind: Kind): Candidate | undefined => {
  const of = list.filter((c) => c.kind === kind);
  return of.find((c) => PERSON.test(c.field)) ?? of[0];
};

/** The credentials panel: the app's address and its login, from the stored values and `.env`. Admins only; every look is audited. */
export function createCredentials(c: StackContext, fieldsOf: (name: string) => TemplateFieldT[]) {
  return function credentials(actor: Actor, name: string, host: string): StackCredentialsT {
    requireRole(actor, 'admin', 'the credentials of an app');
    const loc = c.store.locate(name);
    const meta = c.store.meta(loc);
    const env = parseEnv(c.store.envText(loc));
    const fields = fieldsOf(name);
    const fieldValue = (f: TemplateFieldT): string | undefined => {
      if (f.secret) return env[meta?.secret_env[f.id] ?? envNameOf(f)];
      const v = meta?.values[f.id];
      return v === undefined ? undefined : String(v);
    };
    const marked = fields.filter((f) => f.credential);
    let found: Candidate[];
    if (marked.length > 0) {
      found = marked.map((f) => ({ field: f.id, label: englishText(f.label), value: fieldValue(f) ?? '', kind: f.credential ?? 'other' }));
    } else if (fields.length > 0) {
      found = fields.flatMap((f) => {
        const kind = detect(f.id);
        const value = fieldValue(f);
        return kind && value ? [{ field: f.id, label: englishText(f.label), value, kind }] : [];
      });
    } else {
      // No template (an adopted app): the .env names are all there is.
      found = Object.entries(env).flatMap(([k, value]) => {
        const kind = detect(k);
        return kind && value ? [{ field: k, label: k, value, kind }] : [];
      });
    }
    const username = best(found, 'username');
    const password = best(found, 'password');
    const web = meta?.web;
    const markedUrl = found.find((f) => f.kind === 'url' && f.value);
    const url = markedUrl?.value ?? (web ? `${web.scheme}://${host}:${web.port}${web.path}` : null);
    const other = found
      .filter((f) => f !== username && f !== password && f !== markedUrl && f.value !== '')
      .map((f) => ({ field: f.field, label: f.label, value: f.value }));
    c.events.emit({ type: 'stack.credentials_viewed', actor, source: 'stacks', target: name, status: 'ok' });
    return { url, username: username?.value || null, password: password?.value || null, other };
  };
}
