import { useId, useState } from 'preact/hooks';
import { ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { useAction } from '../../components/use-action.ts';
import { TextField } from '../../forms/field.tsx';
import { t } from '../../i18n.ts';
import { addRepo, editRepo, type JobT, type RepoInput, type RepoT } from './repos-api.ts';

interface Props {
  /** The repo being edited; absent for a new one. */
  repo?: RepoT;
  /** Called only after the server accepted the change, with the sync job it started. */
  onSaved: (repo: RepoT, job: JobT) => void;
  onCancel?: () => void;
  /** The confirmation of the last add, shown under the button where the eye is. */
  added?: string | null;
}

/** The fields of a repo. Editing keeps the id; an empty token keeps the stored one (it is never sent to us). */
export function RepoForm({ repo, onSaved, onCancel, added }: Props) {
  const [v, setV] = useState({
    id: '',
    name: repo?.name ?? '',
    url: repo?.url ?? '',
    branch: repo?.branch ?? 'main',
    subdirectory: repo?.subdirectory ?? '',
    token: '',
    pinned: repo?.pinned_commit ?? '',
  });
  const ids = { title: useId(), error: useId() };
  const set = (key: keyof typeof v) => (value: string) => setV((old) => ({ ...old, [key]: value }));

  const save = useAction(async () => {
    const input: RepoInput = { name: v.name.trim(), branch: v.branch.trim() || 'main', subdirectory: v.subdirectory.trim() };
    // A chosen id is sent as typed, so the server can refuse it rather than rewrite it; empty lets it derive one.
    if (!repo && v.id !== '') input.id = v.id;
    // The list shows the address with any password masked; sending that back would store the mask.
    if (!repo || v.url.trim() !== repo.url) input.url = v.url.trim();
    if (v.token) input.token = v.token;
    // Absent means "follow the branch": clearing the field unpins.
    if (v.pinned.trim()) input.pinned_commit = v.pinned.trim();
    const answer = repo ? await editRepo(repo.id, input) : await addRepo(input);
    if (!repo) setV({ id: '', name: '', url: '', branch: 'main', subdirectory: '', token: '', pinned: '' });
    onSaved(answer.repo, answer.job);
  });
  const { busy, error } = save;
  const submit = (e: Event) => {
    e.preventDefault();
    void save.run();
  };

  const bad = errorFields(error);
  const field = (key: keyof typeof v, name: string, label: string, hint: string, required = false) => (
    <TextField
      label={label}
      name={name}
      value={v[key]}
      onInput={set(key)}
      autocomplete={key === 'token' ? 'new-password' : 'off'}
      hint={hint}
      required={required}
      invalid={bad.includes(name)}
      errorId={ids.error}
      {...(key === 'token' ? { type: 'password' as const } : {})}
    />
  );
  return (
    <form class={repo ? 'repo-form' : 'repo-form card'} aria-labelledby={ids.title} onSubmit={submit} aria-busy={busy} noValidate>
      <h2 id={ids.title}>{repo ? t('repos.edit_title', { name: repo.name }) : t('repos.add_title')}</h2>
      <div class="repo-form-fields">
        {field('name', 'name', t('repos.name'), repo ? t('repos.name_hint_edit', { id: repo.id }) : t('repos.name_hint'), true)}
        {!repo && field('id', 'id', t('repos.id'), t('repos.id_hint'))}
        {field('url', 'url', t('repos.url'), t('repos.url_hint'), true)}
        {field('branch', 'branch', t('repos.branch'), t('repos.branch_hint'))}
        {field('subdirectory', 'subdirectory', t('repos.subdirectory'), t('repos.subdirectory_hint'))}
        {field('token', 'token', t('repos.token'), repo?.has_token ? t('repos.token_hint_keep') : t('repos.token_hint'))}
        {field('pinned', 'pinned_commit', t('repos.pinned_commit'), t('repos.pinned_hint'))}
      </div>
      {!repo && (
        <div role="status" class="repo-form-status">
          {added && !error && <p class="notice">{added}</p>}
        </div>
      )}
      <ErrorMessage error={error} id={ids.error} />
      <div class="repo-form-buttons">
        <button type="submit" class="btn btn-primary">
          {busy ? t('repos.busy') : repo ? t('repos.save') : t('repos.add')}
        </button>
        {onCancel && (
          <button type="button" class="btn repo-cancel" onClick={onCancel}>
            {t('repos.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
