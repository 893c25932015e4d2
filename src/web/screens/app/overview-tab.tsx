import { useState } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { LogsPanel } from '../../components/logs-panel.tsx';
import { portText } from '../../components/port-text.ts';
import { isMessageKey, t } from '../../i18n.ts';
import type { StackDetailT } from './app-api.ts';
import { CredentialsPanel } from './credentials-panel.tsx';

type ContainerT = StackDetailT['containers'][number];

/** The dot colour of a container state, in the palette of the apps list. */
function dotOf(state: string): string {
  if (state === 'running' || state === 'restarting') return `dot-${state}`;
  if (state === 'exited' || state === 'created' || state === 'paused') return 'dot-stopped';
  return 'dot-unknown';
}

function stateText(c: ContainerT): string {
  const key = `containers.state.${c.state}`;
  const state = isMessageKey(key) ? t(key) : c.state;
  if (!c.health) return state;
  const healthKey = `containers.health.${c.health}`;
  return `${state} · ${isMessageKey(healthKey) ? t(healthKey) : c.health}`;
}

/** The containers with the image each one runs now; for admins the credentials; the app's log on request. */
export function OverviewTab({ stack, user }: { stack: StackDetailT; user: UserT }) {
  const [logs, setLogs] = useState(false);
  const { name } = stack;
  return (
    <div class="appview-stack">
      <section class="card appview-card" aria-labelledby="appview-containers">
        <h2 id="appview-containers">{t('appview.containers')}</h2>
        {stack.containers.length === 0 ? (
          <p class="muted">{t('appview.containers_none')}</p>
        ) : (
          <ul class="appview-ctrs">
            {stack.containers.map((c) => (
              <ContainerItem key={c.id} c={c} />
            ))}
          </ul>
        )}
        {stack.status !== 'missing_compose' && (
          <div class="appview-logs">
            <button
              type="button"
              class="btn btn-small btn-quiet"
              aria-expanded={logs}
              aria-label={t('apps.logs_label', { name })}
              onClick={() => setLogs(!logs)}
            >
              {logs ? t('apps.logs_hide') : t('apps.logs')}
            </button>
            {logs && <LogsPanel base={`/api/stacks/${encodeURIComponent(name)}`} name={name} />}
          </div>
        )}
      </section>
      {roleAllows(user.role, 'admin') && <CredentialsPanel name={name} />}
    </div>
  );
}

function ContainerItem({ c }: { c: ContainerT }) {
  const headingId = `appview-ctr-${c.id}`;
  const ports = portText(c.ports);
  return (
    <li class="appview-ctr" aria-labelledby={headingId}>
      <h3 id={headingId}>{c.name}</h3>
      <dl class="appview-facts">
        <div>
          <dt>{t('appview.ctr.service')}</dt>
          <dd>{c.service}</dd>
        </div>
        <div>
          <dt>{t('appview.ctr.state')}</dt>
          <dd class="appview-state">
            <span class={`dot ${dotOf(c.state)}`} aria-hidden="true" />
            {stateText(c)}
          </dd>
        </div>
        <div class="appview-wide">
          <dt>{t('appview.ctr.image')}</dt>
          <dd>
            <code class="appview-mono">{c.image}</code>
          </dd>
        </div>
        <div class="appview-wide">
          <dt>{t('appview.ctr.ports')}</dt>
          <dd>{ports ? <span class="appview-mono">{ports}</span> : <span class="muted">{t('containers.ports_none')}</span>}</dd>
        </div>
      </dl>
    </li>
  );
}
