/** The install form of a Cosmos app (`cosmos-installer.form`) as Kade fields. */
import { hasPlaceholder } from '../../../shared/placeholders.ts';
import type { TemplateFieldT } from '../../../shared/template.ts';
import { plainOf, type WItem, type WPart, type WValue } from './cosmos-whiskers.ts';
import { clip, displayText, fieldIdOf, secretField, textField, withDefault } from './portainer-common.ts';

type Obj = Extract<WValue, { t: 'obj' }>;

/** A member of an object that no condition holds, by its literal key. */
export const memberOf = (o: WValue | undefined, key: string): WValue | undefined => {
  if (o?.t !== 'obj') return undefined;
  for (const m of o.members) if ('key' in m && plainOf(m.key, () => '') === key) return m.value;
  return undefined;
};

/** The plain text of a value: `{ServiceName}` as the app id, `{DefaultDataPath}` as Kade's `{data_dir}`. */
const textOf = (v: WValue | undefined, id: string, forDefault = false): string => {
  if (v?.t === 'lit') return v.v === null ? '' : String(v.v);
  if (v?.t !== 'str') return '';
  return plainOf(v.parts, (name) => {
    if (name === 'ServiceName') return forDefault ? '{name}' : id;
    if (name === 'DefaultDataPath') return forDefault ? '{data_dir}' : '';
    return '';
  });
};

const passwordIn = (v: WValue | undefined): boolean => v?.t === 'str' && v.parts.some((p: WPart) => 'v' in p && /^Passwords\.\d+$/.test(p.v));
/** Form names are camelCase (`dataPath`); field ids are snake_case (`data_path`). */
export const formFieldId = (name: string): string => fieldIdOf(name.replace(/([a-z0-9])([A-Z])/g, '$1_$2'));

const MESSAGE_TYPES = new Set(['warning', 'info', 'error', 'success']);

/** The apps a Cosmos container picker usually asks for, with the port they serve on: Kade's connect fields reach them. */
const CONNECTABLE: [RegExp, { app: string; scheme: string; port: number }][] = [
  [/postgres|pgsql/i, { app: 'postgres', scheme: 'postgres', port: 5432 }],
  [/maria|mysql/i, { app: 'mariadb', scheme: 'mysql', port: 3306 }],
  [/mongo/i, { app: 'mongodb', scheme: 'mongodb', port: 27017 }],
  [/redis|valkey/i, { app: 'redis', scheme: 'redis', port: 6379 }],
  [/influx/i, { app: 'influxdb', scheme: 'http', port: 8086 }],
  [/elastic/i, { app: 'elasticsearch', scheme: 'http', port: 9200 }],
];

/**
 * A container picker as a connect field to another installed app (docs/templates.md, "Connect fields"), when its
 * name or label says which kind of app; null when it does not (then the container's name is typed).
 */
function containerField(id: string, words: string): TemplateFieldT | null {
  const hit = CONNECTABLE.find(([re]) => re.test(words));
  if (!hit) return null;
  return textField(id, 'x', { required: true, connect: hit[1] });
}

export interface CosmosForm {
  /** Form name (`Context.<name>`) → field. */
  fields: Map<string, TemplateFieldT>;
  /** The texts of the form's warning and info messages. */
  messages: string[];
  notes: string[];
}

/** The fields of the form; `newId` hands out unique field ids. */
export function readForm(root: Obj, id: string, newId: (base: string) => string): CosmosForm {
  const installer = memberOf(root, 'cosmos-installer');
  const form = memberOf(installer, 'form');
  const nl = memberOf(memberOf(installer, 'translation'), 'nl');
  const out: CosmosForm = { fields: new Map(), messages: [], notes: [] };
  // Cosmos shows these after the install, often with the generated passwords: Kade's credentials panel does that.
  if (memberOf(installer, 'post-install')) out.notes.push('post-install messages dropped: the credentials panel shows generated passwords');
  if (form?.t !== 'arr') return out;
  // A field a block shows only for some answers is always shown here: a form cannot hide it, and the compose
  // file uses it only inside the same block.
  const flat = (items: WItem[]): WValue[] => items.flatMap((i) => ('t' in i ? [i] : [...flat(i.yes), ...flat(i.no)]));
  const seen = new Set<string>();
  for (const item of flat(form.items)) {
    if (item.t !== 'obj') continue;
    const name = textOf(memberOf(item, 'name'), id);
    const type = textOf(memberOf(item, 'type'), id) || 'text';
    const labelEn = clip(displayText(textOf(memberOf(item, 'label'), id) || name || type), 500);
    if (MESSAGE_TYPES.has(type)) {
      if (labelEn) out.messages.push(labelEn);
      continue;
    }
    if (!name || seen.has(name)) continue;
    seen.add(name);
    const labelNl = textOf(memberOf(nl, `form.${name}.label`), id);
    const label = labelNl ? { en: labelEn, nl: clip(displayText(labelNl), 500) } : labelEn;
    const initial = memberOf(item, 'initialValue');
    const fid = newId(formFieldId(name));
    let f: TemplateFieldT;
    if (type === 'password' || passwordIn(initial)) f = secretField(fid, 'x', passwordIn(initial) ? { generate: true } : {});
    else if (type === 'checkbox')
      f = textField(fid, 'x', { type: 'boolean', default: initial?.t === 'lit' ? initial.v === true : textOf(initial, id) === 'true' });
    else if (type === 'select') {
      const opts = memberOf(item, 'options');
      const options = (opts?.t === 'arr' ? opts.items : []).flatMap((o) => {
        if (!('t' in o) || o.t !== 'arr') return [];
        const [v, l] = o.items.map((x) => ('t' in x ? textOf(x, id) : ''));
        return v === undefined ? [] : [{ value: clip(v, 200), label: clip(displayText(l || v), 500) || '-' }];
      });
      f = textField(fid, 'x', { type: 'select', required: true, options });
    } else if (type === 'email') f = textField(fid, 'x', { type: 'email' });
    else if (type === 'path') f = textField(fid, 'x', { type: 'path' });
    else if (type === 'container' || type === 'container-full') {
      const found = containerField(fid, `${name} ${labelEn}`);
      f = found ?? textField(fid, 'x');
      out.notes.push(
        found
          ? `form field ${name} picks a Cosmos container: here it connects to an installed ${found.connect?.app} app`
          : `form field ${name} picks a Cosmos container: here the container's name is typed`,
      );
    } else f = textField(fid, 'x');
    f = { ...f, label };
    const skip = passwordIn(initial) || type === 'checkbox';
    const literal = skip ? '' : textOf(initial, id);
    const mapped = skip ? '' : textOf(initial, id, true);
    // Kade's own placeholders only where Cosmos's variables stood; the source's own braces stay literal.
    if (mapped) f = hasPlaceholder(literal) ? withDefault(f, literal) : { ...f, default: clip(mapped, 4000) };
    if (f.type === 'select' && f.default === undefined && f.options?.[0]) f = { ...f, default: f.options[0].value };
    out.fields.set(name, f);
  }
  return out;
}
