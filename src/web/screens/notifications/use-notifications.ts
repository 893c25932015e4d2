import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { errorText } from '../../components/error-message.tsx';
import { messagesByField, type SchemaIssue, valueAt } from '../../forms/field-messages.ts';
import { useSchemaIssues } from '../../forms/use-schema-issues.ts';
import { t } from '../../i18n.ts';
import {
  getNotifications,
  type NotificationsT,
  type NotificationsUpdateT,
  saveNotifications,
  type TestResultT,
  testNotifications,
} from './notifications-api.ts';
import { type ChannelDraft, fieldsByChannel, type NotifyForm, newChannel, toForm, toUpdate } from './notifications-model.ts';
import type { SaveState } from './save-bar.tsx';

/** A refusal, with the fields it names sorted to the channel they belong to (by id, so later edits do not shift them). */
interface Refusal {
  error: unknown;
  byChannel: Map<string, { index: number; fields: string[] }>;
  other: string[];
}

function toRefusal(error: unknown, sent: NotificationsUpdateT): Refusal {
  const { channels, other } = fieldsByChannel(error instanceof ApiError ? error.fields : []);
  const byChannel = new Map<string, { index: number; fields: string[] }>();
  for (const [index, fields] of channels) {
    const id = sent.channels[index]?.id;
    if (id) byChannel.set(id, { index, fields });
  }
  return { error, byChannel, other };
}

/** Kade's own sentence for a channel's field where the schema's general one says too little. */
function ownSentence(path: string, value: unknown): string | null {
  const empty = typeof value !== 'string' || value.trim() === '';
  if (path.endsWith('.url')) return empty ? t('field.required') : t('check.http_url');
  if (path.endsWith('.smtp.port')) return t('field.port', { min: 1, max: 65535 });
  if (path.endsWith('.smtp.from')) return empty ? t('field.required') : t('field.email');
  if (path.endsWith('.smtp.to')) return empty ? t('field.required') : t('check.emails');
  return null;
}

/**
 * What is wrong with each field of the body (`channels.0.url`), in Kade's words. An empty field is only said to be
 * required once the user tried to save or test (`tried`); `all` says it anyway (for a refusal that names it).
 */
function liveMessages(body: NotificationsUpdateT, issues: readonly SchemaIssue[], tried: boolean): Record<string, string> {
  const all = messagesByField(issues, (path) => ownSentence(path, valueAt(body, path)));
  if (tried) return all;
  return Object.fromEntries(Object.entries(all).filter(([path]) => String(valueAt(body, path) ?? '').trim() !== ''));
}

/** The screen's state: the stored view, the form being edited, the last save or test and its refusal. */
export function useNotifications() {
  const [view, setView] = useState<NotificationsT | null>(null);
  const [form, setForm] = useState<NotifyForm | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [state, setState] = useState<SaveState>({ kind: 'idle' });
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [results, setResults] = useState<Map<string, TestResultT>>(new Map());
  const [dirty, setDirty] = useState(false);
  const [focusId, setFocusId] = useState<string | null>(null);
  // Whether a save or test was tried: from then on an empty required field is said to be one.
  const [tried, setTried] = useState(false);
  const body = form ? toUpdate(form) : null;
  const issues = useSchemaIssues('notifications', body);

  const load = (v: NotificationsT) => {
    setView(v);
    setForm(toForm(v));
    setDirty(false);
  };

  useEffect(() => {
    getNotifications().then(load, setLoadError);
  }, []);

  // A channel just added: its first field gets the focus once it is on screen.
  useEffect(() => {
    if (!focusId) return;
    document.querySelector<HTMLInputElement>(`[data-channel="${focusId}"] .nfy-fields input`)?.focus();
    setFocusId(null);
  }, [focusId]);

  // A refusal that names fields: the first of them gets the focus, so its reason is read out and in view.
  useEffect(() => {
    if (refusal && refusal.byChannel.size > 0) document.querySelector<HTMLElement>('.nfy-form [aria-invalid="true"]')?.focus();
  }, [refusal]);

  const edit = (f: (prev: NotifyForm) => NotifyForm) => {
    setForm((prev) => (prev ? f(prev) : prev));
    setDirty(true);
    if (state.kind !== 'busy') setState({ kind: 'idle' });
  };
  const patch = (id: string, p: Partial<ChannelDraft>) => {
    edit((f) => ({ ...f, channels: f.channels.map((c) => (c.id === id ? { ...c, ...p } : c)) }));
    // A refusal speaks of what was sent: an edited channel shows its own checks again.
    setRefusal((r) => (r?.byChannel.has(id) ? { ...r, byChannel: new Map([...r.byChannel].filter(([k]) => k !== id)) } : r));
  };
  const add = (kind: ChannelDraft['kind']) => {
    const c = newChannel(kind);
    edit((f) => ({ ...f, channels: [...f.channels, c] }));
    setFocusId(c.id);
  };

  const submit = async (action: 'save' | 'test') => {
    if (!form || !body || state.kind === 'busy') return;
    setTried(true);
    setState({ kind: 'busy', action });
    try {
      if (action === 'save') {
        load(await saveNotifications(body));
        setState({ kind: 'saved' });
      } else {
        const { results: list } = await testNotifications(body);
        setResults(new Map(list.map((r) => [r.channel, r])));
        load(await getNotifications());
        setState({ kind: 'tested', ok: list.filter((r) => r.ok).length, total: list.length });
      }
      setRefusal(null);
    } catch (error) {
      setRefusal(toRefusal(error, body));
      setState({ kind: 'refused', error });
    }
  };
  return { view, form, body, issues, loadError, state, refusal, results, dirty, tried, edit, patch, add, submit };
}

/** What to say at each channel's fields and at the rules: the live checks, else the server's word on what it named. */
export function fieldProblems(n: ReturnType<typeof useNotifications>) {
  const { body, issues, refusal, form } = n;
  const live = body ? liveMessages(body, issues, n.tried) : {};
  const everything = body ? liveMessages(body, issues, true) : {};
  // The server's word on a field it named: Kade's own sentence for what the shared rules find, else the refusal's text.
  const serverSays = (path: string) =>
    refusal?.error instanceof ApiError && refusal.error.code === 'validation' ? (everything[path] ?? t('check.invalid')) : errorText(refusal?.error);
  const problemOf = (id: string) => (field: string) => {
    const index = form?.channels.findIndex((c) => c.id === id) ?? -1;
    const path = `channels.${index}${field ? `.${field}` : ''}`;
    const named = refusal?.byChannel.get(id);
    return live[path] ?? (named?.fields.includes(field) ? serverSays(`channels.${named.index}${field ? `.${field}` : ''}`) : null);
  };
  const rulesProblem = refusal?.other.some((f) => f.startsWith('rules')) ? serverSays(refusal.other[0] ?? 'rules') : null;
  const atFields = refusal !== null && (refusal.byChannel.size > 0 || rulesProblem !== null);
  return { problemOf, rulesProblem, atFields };
}
