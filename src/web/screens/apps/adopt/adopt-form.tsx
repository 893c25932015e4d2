import type { Ref } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../../api.ts';
import { AlertBox, ErrorMessage, errorFields } from '../../../components/error-message.tsx';
import { useAction } from '../../../components/use-action.ts';
import { type PathCheckState, usePathCheck } from '../../../components/use-path-check.ts';
import { FieldFrame, TextField } from '../../../forms/field.tsx';
import { nameProblem } from '../../../forms/field-messages.ts';
import { t } from '../../../i18n.ts';
import { adoptApp, type StackT } from './adopt-api.ts';

type Check = PathCheckState;

/** Only what matters for adopting: visible to Kade (below BASE_DIR) and a folder. Writability does not. */
function FolderStatus({ id, check }: { id: string; check: Check }) {
  // A failed check says nothing about the folder; the adopt itself gives the real answer.
  if (check.kind === 'idle' || check.kind === 'failed') return <p class="adopt-check" id={id} />;
  if (check.kind === 'checking') {
    return (
      <p class="adopt-check muted" id={id}>
        {t('adopt.checking')}
      </p>
    );
  }
  const r = check.result;
  let text: string;
  if (!r.inside_base) text = t('adopt.check_outside', { base: r.base });
  else if (!r.exists) text = t('adopt.check_missing', { base: r.base });
  else if (r.reason === 'not_a_directory') text = t('adopt.check_file');
  else {
    return (
      <p class="adopt-check adopt-check-ok" id={id}>
        <span aria-hidden="true">✓ </span>
        {t('adopt.check_ok', { base: r.base })}
      </p>
    );
  }
  return (
    <p class="adopt-check adopt-check-bad" id={id}>
      <span aria-hidden="true">⚠ </span>
      {text}
    </p>
  );
}

/**
 * Refusals of an adopt that the generic error texts explain poorly: where the folder must be (the Errors row
 * of the SPEC), and a project name that cannot be an app name. Null leaves the error to ErrorMessage.
 */
export function adoptErrorText(err: unknown, gaveName: boolean): string | null {
  if (!(err instanceof ApiError)) return null;
  const p = err.params;
  if (err.code === 'path_unreachable' && typeof p.base === 'string') return t('adopt.error.unreachable', { path: String(p.path ?? ''), base: p.base });
  if (err.code === 'invalid_name' && !gaveName) return t('adopt.error.project_name', { name: String(p.name ?? '') });
  if (err.code === 'conflict' && err.fields.includes('path')) {
    return typeof p.stack === 'string' ? t('adopt.error.adopted_already', { stack: p.stack }) : t('adopt.error.app_folder');
  }
  return null;
}

interface Props {
  onAdopted: (stack: StackT) => void;
  onCancel: () => void;
}

/** The folder of an app started outside Kade, and optionally the name it gets in Kade. */
export function AdoptForm({ onAdopted, onCancel }: Props) {
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  // What the last submit sent: a refusal marks a field only while it still holds the refused value.
  const [sent, setSent] = useState({ path: '', name: '' });
  const [relative, setRelative] = useState<string | null>(null);
  const check = usePathCheck(path);
  const ids = { title: useId(), path: useId(), error: useId() };
  const pathInput = useRef<HTMLInputElement>(null);

  // Opened on purpose: the folder is the first thing to give.
  useEffect(() => pathInput.current?.focus(), []);

  const adopt = useAction(async (folder: string, wanted: string) => {
    setSent({ path: folder, name: wanted });
    onAdopted(await adoptApp(folder, wanted || undefined));
  });
  const { busy, error } = adopt;
  const nameSays = nameProblem('app', name.trim());

  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    adopt.reset();
    const folder = path.trim();
    const wanted = name.trim();
    if (!folder.startsWith('/')) {
      setRelative(folder);
      pathInput.current?.focus();
      return;
    }
    setRelative(null);
    if (nameSays) return;
    void adopt.run(folder, wanted);
  };

  const bad = errorFields(error);
  const relativeNow = relative !== null && relative === path.trim();
  const refusedPath = relativeNow || (bad.includes('path') && sent.path === path.trim());
  const pathInvalid = refusedPath || (check.kind === 'done' && !check.result.inside_base);
  const own = adoptErrorText(error, sent.name !== '');
  return (
    <form
      class="card adopt-form"
      aria-labelledby={ids.title}
      onSubmit={submit}
      onKeyDown={(e) => e.key === 'Escape' && !busy && onCancel()}
      aria-busy={busy}
      noValidate
    >
      <h2 id={ids.title}>{t('adopt.title')}</h2>
      <p class="muted adopt-intro">{t('adopt.intro')}</p>
      <PathField id={ids.path} errorId={ids.error} input={pathInput} value={path} onInput={setPath} check={check} refused={refusedPath} flagged={pathInvalid} />
      <TextField
        label={t('adopt.name')}
        name="name"
        value={name}
        onInput={setName}
        hint={t('adopt.name_hint')}
        error={nameSays}
        invalid={bad.includes('name') && sent.name === name.trim()}
        errorId={ids.error}
      />
      <Refusal id={ids.error} error={error} relative={relative !== null} own={own} />
      <div class="adopt-buttons">
        <button type="submit" class="btn btn-primary">
          {busy ? t('adopt.busy') : t('adopt.submit')}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          {t('adopt.cancel')}
        </button>
      </div>
    </form>
  );
}

/** The folder, checked while typing: visible to Kade and a folder. */
function PathField(p: {
  id: string;
  errorId: string;
  input: Ref<HTMLInputElement>;
  value: string;
  onInput: (v: string) => void;
  check: Check;
  refused: boolean;
  flagged: boolean;
}) {
  return (
    <FieldFrame
      label={t('adopt.path')}
      name="path"
      required
      hint={t('adopt.path_hint')}
      invalid={p.refused}
      errorId={p.errorId}
      flagged={p.flagged}
      describedBy={`${p.id}-check`}
      footer={<FolderStatus id={`${p.id}-check`} check={p.check} />}
    >
      {(a) => (
        <input
          ref={p.input}
          type="text"
          {...a}
          class="adopt-path"
          value={p.value}
          onInput={(e) => p.onInput(e.currentTarget.value)}
          autocomplete="off"
          autocapitalize="off"
          spellcheck={false}
        />
      )}
    </FieldFrame>
  );
}

/** Why the adopt did not go: a relative folder, a refusal in adopt's own words, else the usual error text. */
function Refusal({ id, error, relative, own }: { id: string; error: unknown; relative: boolean; own: string | null }) {
  if (relative || own) {
    return (
      <AlertBox id={id}>
        <p>{relative ? t('adopt.need_absolute') : own}</p>
      </AlertBox>
    );
  }
  return <ErrorMessage error={error} id={id} />;
}
