import type { Ref } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from '../../components/error-message.tsx';
import { LogsPanel } from '../../components/logs-panel.tsx';
import { portText } from '../../components/port-text.ts';
import { PanelButton } from '../../components/row-panel.tsx';
import { useAction } from '../../components/use-action.ts';
import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import { ContainerInspect } from './container-inspect.tsx';
import { type ContainerAction, type ContainerEntryT, containerAction, deleteContainer } from './containers-api.ts';

type Panel = 'none' | 'inspect' | 'logs' | 'delete';
type Op = ContainerAction | 'delete';

const STATES = ['running', 'exited', 'created', 'paused', 'restarting', 'removing', 'dead'] as const;
type KnownState = (typeof STATES)[number];
const isKnown = (s: string): s is KnownState => (STATES as readonly string[]).includes(s);
const HEALTHS = ['healthy', 'unhealthy', 'starting'] as const;
type KnownHealth = (typeof HEALTHS)[number];
const isKnownHealth = (h: string): h is KnownHealth => (HEALTHS as readonly string[]).includes(h);

/** The status colour of a container state, in the palette of the apps list. */
function dotClass(state: string): string {
  if (state === 'running' || state === 'restarting' || state === 'paused' || state === 'dead') return `ctr-dot-${state}`;
  return isKnown(state) ? 'ctr-dot-stopped' : 'ctr-dot-unknown';
}

interface Props {
  container: ContainerEntryT;
  canOperate: boolean;
  onChanged: () => void;
}

/** One container: state, image, ports, owner app; actions as the role and the own flag allow. */
export function ContainerRow({ container: c, canOperate, onChanged }: Props) {
  const [panel, setPanel] = useState<Panel>('none');
  const [done, setDone] = useState<Op | null>(null);
  const action = useAction(async (op: Op) => {
    if (op === 'delete') await deleteContainer(c.id);
    else await containerAction(c.id, op);
    setDone(op);
    setPanel('none');
    onChanged();
  });
  const { error } = action;
  // The operation under way, for the spinner's words; null while none runs.
  const [busy, setBusy] = useState<Op | null>(null);
  const heading = useId();
  const running = c.state === 'running' || c.state === 'restarting';
  const toggle = (p: Panel) => setPanel(panel === p ? 'none' : p);
  const cancel = useRef<HTMLButtonElement>(null);
  // The question takes the focus on its safe answer, so Enter never deletes by accident.
  useEffect(() => {
    if (panel === 'delete') cancel.current?.focus();
  }, [panel]);

  const act = async (op: Op) => {
    if (action.busy) return;
    setBusy(op);
    setDone(null);
    await action.run(op);
    setBusy(null);
  };

  const ops: ContainerAction[] = c.own ? [] : running ? ['stop', 'restart'] : ['start'];
  return (
    <li class="ctr" aria-labelledby={heading} aria-busy={busy !== null} data-state={c.state}>
      <ContainerInfo c={c} heading={heading} />
      <fieldset class="ctr-actions">
        <legend class="sr-only">{t('containers.actions_label', { name: c.name })}</legend>
        {canOperate &&
          ops.map((op) => (
            <button
              key={op}
              type="button"
              class="btn btn-small"
              aria-label={t(`containers.${op}_label`, { name: c.name })}
              aria-disabled={busy !== null}
              onClick={() => void act(op)}
            >
              {t(`containers.${op}`)}
            </button>
          ))}
        <PanelButton open={panel === 'inspect'} label={t('containers.inspect_label', { name: c.name })} onClick={() => toggle('inspect')}>
          {t('containers.inspect')}
        </PanelButton>
        <PanelButton open={panel === 'logs'} label={t('containers.logs_label', { name: c.name })} onClick={() => toggle('logs')}>
          {t('containers.logs')}
        </PanelButton>
        {canOperate && !c.own && (
          <PanelButton class="ctr-delete" open={panel === 'delete'} label={t('containers.delete_label', { name: c.name })} onClick={() => toggle('delete')}>
            {t('containers.delete')}
          </PanelButton>
        )}
      </fieldset>
      <div class="ctr-extra">
        {c.own && canOperate && <p class="muted small">{t('containers.own_hint')}</p>}
        <p role="status" class="ctr-line">
          {busy && <span class="ctr-spinner" aria-hidden="true" />}
          {busy ? t('containers.busy', { name: c.name }) : done ? t(`containers.done.${done}`, { name: c.name }) : ''}
        </p>
        <ErrorMessage error={error} onDismiss={action.reset} />
        {panel === 'delete' && (
          <DeleteQuestion name={c.name} busy={busy !== null} cancel={cancel} onYes={() => void act('delete')} onNo={() => setPanel('none')} />
        )}
        {panel === 'inspect' && <ContainerInspect id={c.id} />}
        {panel === 'logs' && <LogsPanel base={`/api/containers/${encodeURIComponent(c.id)}`} name={c.name} />}
      </div>
    </li>
  );
}

/** What the container is: name, image, ports, the app that owns it, its state and health. */
function ContainerInfo({ c, heading }: { c: ContainerEntryT; heading: string }) {
  const ports = portText(c.ports);
  return (
    <>
      <div class="ctr-main">
        <h2 class="ctr-name" id={heading}>
          {c.name}
          {c.own && <span class="badge badge-own">{t('containers.own')}</span>}
        </h2>
        <p class="ctr-meta">
          <span class="ctr-image" title={t('containers.image')}>
            {c.image}
          </span>
          <span class="ctr-ports">{ports || t('containers.ports_none')}</span>
        </p>
        <p class="ctr-owner">
          {c.managed && c.stack ? (
            <a href="/apps" onClick={onLinkClick} aria-label={t('containers.app_label', { stack: c.stack })}>
              {t('containers.app', { stack: c.stack })}
            </a>
          ) : (
            <span class="muted">{t('containers.unmanaged')}</span>
          )}
        </p>
      </div>
      <p class="ctr-state">
        <span class={`ctr-dot ${dotClass(c.state)}`} aria-hidden="true" />
        <span class="sr-only">{t('containers.state_label')}: </span>
        <span>{isKnown(c.state) ? t(`containers.state.${c.state}`) : c.state}</span>
        {c.health && <span class="ctr-health">{isKnownHealth(c.health) ? t(`containers.health.${c.health}`) : c.health}</span>}
      </p>
    </>
  );
}

function DeleteQuestion(p: { name: string; busy: boolean; cancel: Ref<HTMLButtonElement>; onYes: () => void; onNo: () => void }) {
  return (
    <div class="ctr-confirm card">
      <p>{t('containers.delete_confirm', { name: p.name })}</p>
      <div class="ctr-confirm-buttons">
        <button type="button" class="btn btn-small ctr-delete-yes" aria-disabled={p.busy} onClick={p.onYes}>
          {t('containers.delete_yes')}
        </button>
        <button type="button" class="btn btn-small" ref={p.cancel} onClick={p.onNo}>
          {t('containers.cancel')}
        </button>
      </div>
    </div>
  );
}
