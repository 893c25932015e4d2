import { useCallback, useMemo, useState } from 'preact/hooks';
import type { StackT } from '../../../shared/api.ts';
import { roleAllows } from '../../../shared/roles.ts';
import { listStacks, type UserT } from '../../api.ts';
import { appPath } from '../../app-paths.ts';
import { formatBytes } from '../../components/backup-format.ts';
import { BackupList, DeletedNotice } from '../../components/backup-list.tsx';
import { BackupNowProgress, useBackupNow } from '../../components/backup-now.tsx';
import { type BackupT, listBackups } from '../../components/backups-api.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { type Polled, usePolled } from '../../components/use-polled.ts';
import { getLang, t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import { getDisk, getSchedule } from './backups-api.ts';
import { DiskBar } from './disk-bar.tsx';
import { ScheduleCard } from './schedule-form.tsx';
import './backups.css';

const POLL_MS = 30_000;
const allBackups = () => listBackups();
const ALL = '';

/** Every backup by app, the disk they live on, a manual backup of any app, and the schedule with its retention. */
export function BackupsScreen({ user }: { user: UserT }) {
  const list = usePolled(allBackups, POLL_MS);
  const disk = usePolled(getDisk, POLL_MS);
  const schedule = usePolled(getSchedule, POLL_MS);
  // The installed apps: the one to back up now, and which backups belong to an app that is gone.
  const stacks = usePolled(listStacks, POLL_MS);
  const [deleted, setDeleted] = useState<BackupT | null>(null);
  const [filter, setFilter] = useState(ALL);
  const canOperate = roleAllows(user.role, 'operator');
  const reload = useCallback(() => {
    list.reload();
    disk.reload();
  }, [list.reload, disk.reload]);

  return (
    <section class="page backups-page" aria-labelledby="page-title">
      <PageHead title={t('backups.title')}>
        <button type="button" class="btn btn-small" onClick={reload}>
          {t('backups.refresh')}
        </button>
      </PageHead>
      <p class="muted backups-intro">{t('backups.intro')}</p>
      <div class="backups-top">
        <DiskBar disk={disk.data} error={disk.error} />
        {canOperate && <BackUpAnyApp stacks={stacks} onEnd={reload} />}
      </div>
      <ScheduleCard schedule={schedule.data} error={schedule.error} canEdit={roleAllows(user.role, 'admin')} onSaved={schedule.reload} />
      <DeletedNotice deleted={deleted} />
      <LoadState error={list.error} loading={list.data === null} text={t('backups.loading')} />
      {list.data && (
        <Groups
          backups={list.data}
          installed={stacks.data ? new Set(stacks.data.map((s) => s.name)) : null}
          filter={filter}
          onFilter={setFilter}
          canOperate={canOperate}
          canDownload={roleAllows(user.role, 'admin')}
          onChanged={reload}
          onDeleted={(b) => {
            setDeleted(b);
            reload();
          }}
        />
      )}
    </section>
  );
}

/** "Back up now" for an app chosen from the installed ones. */
function BackUpAnyApp({ stacks, onEnd }: { stacks: Polled<StackT[]>; onEnd: () => void }) {
  const [chosen, setChosen] = useState('');
  const state = useBackupNow(onEnd);
  const names = (stacks.data ?? []).filter((s) => s.status !== 'missing_compose').map((s) => s.name);
  const stack = chosen || names[0] || '';
  return (
    <section class="card backups-card backup-now" aria-labelledby="backups-now">
      <h2 id="backups-now">{t('backups.now_title')}</h2>
      <p class="muted small">{t('backups.now_intro')}</p>
      <ErrorMessage error={stacks.error} />
      {stacks.data && names.length === 0 && <p class="muted">{t('backups.now_no_apps')}</p>}
      {names.length > 0 && (
        <div class="backup-now-form">
          <div class="field">
            <label for="backups-now-app">{t('backups.app')}</label>
            <select id="backups-now-app" value={stack} onChange={(e) => setChosen(e.currentTarget.value)}>
              {names.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </div>
          <button type="button" class="btn btn-primary" aria-disabled={state.running || !stack} onClick={() => stack && void state.start(stack)}>
            {state.running ? t('backups.now_busy') : t('backups.now')}
          </button>
        </div>
      )}
      <BackupNowProgress state={state} />
    </section>
  );
}

interface GroupsProps {
  backups: BackupT[];
  /** The installed apps' names; null while unknown. A backup of an app that is gone is not linked to it. */
  installed: ReadonlySet<string> | null;
  filter: string;
  onFilter: (app: string) => void;
  canOperate: boolean;
  canDownload: boolean;
  onChanged: () => void;
  onDeleted: (b: BackupT) => void;
}

/** One card per app, in name order; the filter narrows them to one app. */
function Groups({ backups, installed, filter, onFilter, canOperate, canDownload, onChanged, onDeleted }: GroupsProps) {
  const groups = useMemo(() => {
    const by = new Map<string, BackupT[]>();
    for (const b of backups) by.set(b.stack, [...(by.get(b.stack) ?? []), b]);
    return [...by.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [backups]);
  if (backups.length === 0) {
    return (
      <div class="empty card">
        <p>{t('backups.empty')}</p>
      </div>
    );
  }
  // A filter on an app whose last backup is gone shows every app again.
  const shown = groups.filter(([stack]) => filter === ALL || stack === filter);
  const visible = shown.length > 0 ? shown : groups;
  return (
    <>
      <div class="backups-filter">
        <label for="backups-filter">{t('backups.filter')}</label>
        <select id="backups-filter" value={shown.length > 0 ? filter : ALL} onChange={(e) => onFilter(e.currentTarget.value)}>
          <option value={ALL}>{t('backups.filter_all', { count: backups.length })}</option>
          {groups.map(([stack, list]) => (
            <option key={stack} value={stack}>
              {t('backups.filter_app', { name: stack, count: list.length })}
            </option>
          ))}
        </select>
      </div>
      {visible.map(([stack, list]) => (
        <section key={stack} class="card backups-card backups-group" aria-labelledby={`backups-app-${stack}`} data-stack={stack}>
          <div class="backups-group-head">
            <h2 id={`backups-app-${stack}`}>
              {installed?.has(stack) === false ? (
                <>
                  {stack} <span class="badge badge-outdated">{t('backups.app_gone')}</span>
                </>
              ) : (
                <a href={`${appPath(stack)}#backups`} onClick={onLinkClick}>
                  {stack}
                </a>
              )}
            </h2>
            <p class="muted small">
              {t('backups.group_facts', {
                count: list.length,
                size: formatBytes(
                  list.reduce((n, b) => n + b.size, 0),
                  getLang(),
                ),
              })}
            </p>
          </div>
          <BackupList
            backups={list}
            canOperate={canOperate}
            canDownload={canDownload}
            onChanged={onChanged}
            onDeleted={onDeleted}
            label={t('backups.list_label', { name: stack })}
          />
        </section>
      ))}
    </>
  );
}
