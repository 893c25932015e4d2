import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { JobT } from '../../../shared/api.ts';
import { ApiError } from '../../api.ts';
import { AlertBox, ErrorMessage, errorDetail, errorText } from '../../components/error-message.tsx';
import { JobProgress } from '../../components/job-progress.tsx';
import { t } from '../../i18n.ts';
import { applyStack, getStackFile, putStackFile, type StackFile } from './app-api.ts';
import { lineCount } from './app-path.ts';

type Result =
  | { kind: 'idle' }
  | { kind: 'saving'; apply: boolean }
  /** Saved; `job` is the apply that followed, `applyError` its refusal. */
  | { kind: 'saved'; snapshot: string; job: JobT | null; applyError: unknown }
  /** `sent`: the text the server refused, to tell which kind of bad line it named. */
  | { kind: 'refused'; error: unknown; sent: string };

interface Props {
  name: string;
  file: StackFile;
  editable: boolean;
  /** Admins may show the secret values of `.env` (audited); everyone else sees them masked. */
  canReveal: boolean;
  /** After every successful save, so the snapshot list can show the new snapshot. */
  onSaved: () => void;
  /** The app's files version (GET /api/stacks/<name>): when it moves, the text is read again. */
  filesVersion?: string | null | undefined;
}

/** The file's text as read (`original`) and as edited (`text`); `.env` comes masked unless `reveal`. */
function useFileText(name: string, file: StackFile) {
  const [original, setOriginal] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [loadError, setLoadError] = useState<unknown>(null);
  // Secret values of `.env` arrive masked; showing them is an explicit (and audited) click.
  const [reveal, setReveal] = useState(false);
  const [masked, setMasked] = useState<string[]>([]);
  const [reads, setReads] = useState(0);

  useEffect(() => {
    let alive = true;
    getStackFile(name, file, reveal).then(
      (got) => {
        if (!alive) return;
        setOriginal(got.content);
        setText(got.content);
        setMasked(got.masked);
      },
      (e: unknown) => alive && setLoadError(e),
    );
    return () => {
      alive = false;
    };
  }, [name, file, reveal, reads]);

  /** The text the server answered to a save is on screen now; it answers `.env` masked again. */
  const saved = (content: string) => {
    setOriginal(content);
    setText(content);
    setReveal(false);
  };
  const reread = () => {
    setReveal(false);
    setReads((n) => n + 1);
  };
  return { original, text, setText, loadError, reveal, setReveal, masked, saved, reread };
}

type FileText = ReturnType<typeof useFileText>;

/** Saving the edited text (and applying it), with the outcome to show; `revert` goes back to the saved text. */
function useSave(name: string, file: StackFile, f: FileText, onSaved: () => void) {
  const [result, setResult] = useState<Result>({ kind: 'idle' });
  const dirty = f.original !== null && f.text !== f.original;
  const busy = result.kind === 'saving' || (result.kind === 'saved' && result.job !== null && !ended(result.job));

  const save = async (apply: boolean) => {
    if (!dirty || busy) return;
    setResult({ kind: 'saving', apply });
    let snapshot: string;
    try {
      const saved = await putStackFile(name, file, f.text);
      f.saved(saved.content);
      snapshot = saved.snapshot;
    } catch (error) {
      setResult({ kind: 'refused', error, sent: f.text });
      return;
    }
    onSaved();
    if (!apply) return setResult({ kind: 'saved', snapshot, job: null, applyError: null });
    try {
      setResult({ kind: 'saved', snapshot, job: await applyStack(name), applyError: null });
    } catch (applyError) {
      setResult({ kind: 'saved', snapshot, job: null, applyError });
    }
  };

  // Back to the saved text; a refusal of the discarded text no longer applies.
  const revert = () => {
    if (f.original === null) return;
    f.setText(f.original);
    if (result.kind === 'refused') setResult({ kind: 'idle' });
  };
  const jobEnded = (j: JobT) => setResult((r) => (r.kind === 'saved' && r.job?.id === j.id ? { ...r, job: j } : r));
  return { result, dirty, busy, save, revert, jobEnded };
}

/** One stack file as text: operators and admins edit and save (and apply), viewers read; secrets stay masked. */
export function FileEditor({ name, file, editable, canReveal, onSaved, filesVersion }: Props) {
  const id = useId();
  const f = useFileText(name, file);
  const s = useSave(name, file, f, onSaved);
  const changedUnder = useFilesChange(filesVersion, s.dirty, f.reread);
  const { original, text } = f;

  const title = t(`appview.file.${file}.title`);
  return (
    <section class="card appview-card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p class="muted small" id={`${id}-hint`}>
        {t(`appview.file.${file}.hint`)} {editable ? t('appview.file.not_applied') : t('appview.file.read_only')}
      </p>
      <ErrorMessage error={f.loadError} />
      {changedUnder && (
        <div class="notice appview-changed" role="status">
          <p>{t('appview.file.changed_under')}</p>
          <button type="button" class="btn btn-small" onClick={changedUnder}>
            {t('appview.file.load_new')}
          </button>
        </div>
      )}
      <MaskedNote file={file} f={f} canReveal={canReveal} dirty={s.dirty} />
      {original === null && !f.loadError && (
        <p class="muted" role="status">
          {t('appview.file.loading')}
        </p>
      )}
      {original !== null && (
        <>
          <label class="sr-only" for={`${id}-text`}>
            {title}
          </label>
          <textarea
            id={`${id}-text`}
            class="appview-code"
            value={text}
            readOnly={!editable}
            rows={Math.min(Math.max(lineCount(text) + 1, 6), 28)}
            wrap="off"
            spellcheck={false}
            autocapitalize="off"
            autocomplete="off"
            aria-invalid={s.result.kind === 'refused' ? 'true' : undefined}
            aria-describedby={`${id}-hint ${id}-count`}
            onInput={(e) => f.setText(e.currentTarget.value)}
          />
          <EditorBar countId={`${id}-count`} text={text} editable={editable} save={s} />
          <SaveOutcome name={name} file={file} result={s.result} onJobEnd={s.jobEnded} />
        </>
      )}
    </section>
  );
}

/**
 * What is masked: `.env`'s hidden values with "Show secrets" for an admin, and for everyone else a compose file that
 * shows secrets masked.
 */
function MaskedNote({ file, f, canReveal, dirty }: { file: StackFile; f: FileText; canReveal: boolean; dirty: boolean }) {
  if (file === 'compose') {
    if (canReveal || !f.original?.includes(MASK)) return null;
    return (
      <p class="appview-masked muted small" role="note">
        {t('appview.file.compose.masked')}
      </p>
    );
  }
  if (f.masked.length === 0 || f.reveal) return null;
  return (
    <p class="appview-masked" role="note">
      <span class="muted small">
        {t('appview.file.env.masked', { count: f.masked.length })}
        {!canReveal && ` ${t('appview.file.env.admins_reveal')}`}
      </span>{' '}
      {canReveal && (
        <button type="button" class="btn btn-small btn-quiet" aria-disabled={dirty} onClick={() => !dirty && f.setReveal(true)}>
          {t('appview.file.env.reveal')}
        </button>
      )}
    </p>
  );
}

/** The line count with "unsaved changes", and for those who edit: undo, save, save and apply. */
function EditorBar({ countId, text, editable, save: s }: { countId: string; text: string; editable: boolean; save: ReturnType<typeof useSave> }) {
  const { result, dirty, busy } = s;
  return (
    <p class="appview-editor-bar">
      <span class="muted small" id={countId}>
        {t('appview.file.lines', { count: lineCount(text) })}
        {dirty && <strong class="appview-dirty"> · {t('appview.file.unsaved')}</strong>}
      </span>
      {editable && (
        <span class="appview-editor-buttons">
          {dirty && (
            <button type="button" class="btn btn-small btn-quiet" onClick={s.revert}>
              {t('appview.file.revert')}
            </button>
          )}
          <button type="button" class="btn btn-small" aria-disabled={!dirty || busy} onClick={() => void s.save(false)}>
            {result.kind === 'saving' && !result.apply ? t('appview.file.saving') : t('appview.file.save')}
          </button>
          <button type="button" class="btn btn-small btn-primary" aria-disabled={!dirty || busy} onClick={() => void s.save(true)}>
            {result.kind === 'saving' && result.apply ? t('appview.file.saving') : t('appview.file.save_apply')}
          </button>
        </span>
      )}
    </p>
  );
}

/**
 * Follows the app's files version: a change reads the file again at once when nothing is typed (`held` false),
 * else it returns the way to read it again, discarding the edit, which the editor offers as a button.
 */
function useFilesChange(version: string | null | undefined, held: boolean, read: () => void): (() => void) | null {
  const seen = useRef(version);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    if (version === undefined || version === seen.current) return;
    seen.current = version;
    if (held) setPending(true);
    else read();
  }, [version]);
  if (!pending) return null;
  return () => {
    setPending(false);
    read();
  };
}

/** What the server shows instead of a secret value. */
const MASK = '••••••••';

const ended = (j: JobT) => j.state === 'succeeded' || j.state === 'failed' || j.state === 'interrupted';

function SaveOutcome({ name, file, result, onJobEnd }: { name: string; file: StackFile; result: Result; onJobEnd: (j: JobT) => void }) {
  if (result.kind === 'refused') return <Refusal file={file} error={result.error} sent={result.sent} />;
  return (
    <>
      <p role="status" class={result.kind === 'saved' ? 'appview-ok' : 'sr-only'}>
        {result.kind === 'saved' ? t('appview.file.saved', { snapshot: result.snapshot }) : ''}
      </p>
      {result.kind === 'saved' && result.applyError !== null && (
        <AlertBox>
          <p>
            <strong>{t('appview.file.apply_refused')}</strong> {errorText(result.applyError)}
          </p>
        </AlertBox>
      )}
      {result.kind === 'saved' && result.job && (
        <JobProgress key={result.job.id} job={result.job} label={t('appview.file.applying', { name })} onEnd={onJobEnd} />
      )}
    </>
  );
}

/**
 * The translated reason of a refusal. The server names a bad line by number: in `.env` a line without
 * `=` or with an invalid name (the sent text tells which), in the compose file a YAML error.
 */
function refusalText(file: StackFile, error: unknown, sent: string): string {
  const line = error instanceof ApiError ? error.params.line : undefined;
  if (line === undefined || !(error instanceof ApiError)) return errorText(error);
  if (file === 'env' && error.code === 'validation') {
    const text = sent.split('\n')[Number(line) - 1] ?? '';
    return text.includes('=') ? t('appview.env.bad_name', { line: String(line) }) : t('appview.env.bad_line', { line: String(line) });
  }
  if (file === 'compose' && error.code === 'compose_invalid') return t('appview.compose.bad_line', { line: String(line) });
  if (file === 'compose' && error.params.reason === 'masked_moved') return t('appview.compose.masked_moved', { line: String(line) });
  return errorText(error);
}

/** Why the server refused the save, never shown as a success; the server's own words under it. */
function Refusal({ file, error, sent }: { file: StackFile; error: unknown; sent: string }) {
  // A named `.env` line says it all; the YAML parser's own words still help with a compose file.
  const lineNamed = file === 'env' && error instanceof ApiError && error.params.line !== undefined;
  const detail = lineNamed ? null : errorDetail(error);
  return (
    <AlertBox>
      <p>
        <strong>{t('appview.file.not_saved')}</strong> {refusalText(file, error, sent)}
      </p>
      {detail && <p class="error-detail">{t('error.details', { detail })}</p>}
    </AlertBox>
  );
}
