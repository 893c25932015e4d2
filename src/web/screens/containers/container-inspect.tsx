import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage } from '../../components/error-message.tsx';
import { getLang, t } from '../../i18n.ts';
import { inspectContainer } from './containers-api.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The facts a user asks about first, from the engine's inspect; empty values read as a dash. */
function facts(info: Json): [key: 'id' | 'image' | 'created' | 'started' | 'command' | 'restart' | 'networks' | 'mounts', value: string][] {
  const config = obj(info.Config);
  const state = obj(info.State);
  const host = obj(info.HostConfig);
  const networks = Object.entries(obj(obj(info.NetworkSettings).Networks)).map(([n, v]) => (str(obj(v).IPAddress) ? `${n} (${str(obj(v).IPAddress)})` : n));
  const mounts = (Array.isArray(info.Mounts) ? info.Mounts : []).map((m) => {
    const o = obj(m);
    return `${str(o.Name) || str(o.Source)} → ${str(o.Destination)}${o.RW === false ? ' (ro)' : ''}`;
  });
  const cmd = [...(Array.isArray(config.Entrypoint) ? config.Entrypoint : []), ...(Array.isArray(config.Cmd) ? config.Cmd : [])].map(String);
  const when = (s: string) => (s && !s.startsWith('0001-') ? new Date(s).toLocaleString(getLang() === 'nl' ? 'nl-NL' : 'en-GB') : '');
  return [
    ['id', str(info.Id).slice(0, 12)],
    ['image', str(config.Image)],
    ['created', when(str(info.Created))],
    ['started', when(str(state.StartedAt))],
    ['command', cmd.join(' ')],
    ['restart', str(obj(host.RestartPolicy).Name)],
    ['networks', networks.join(', ')],
    ['mounts', mounts.join(', ')],
  ];
}

/** Key facts of one container, with the whole inspect as JSON folded away below them. */
export function ContainerInspect({ id }: { id: string }) {
  const [info, setInfo] = useState<Json | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let alive = true;
    inspectContainer(id).then(
      (v) => alive && setInfo(v),
      (e: unknown) => alive && setError(e),
    );
    return () => {
      alive = false;
    };
  }, [id]);

  if (error) return <ErrorMessage error={error} />;
  if (!info)
    return (
      <p class="muted small" role="status">
        {t('containers.inspect_loading')}
      </p>
    );
  return (
    <div class="ctr-panel">
      <dl class="ctr-facts">
        {facts(info).map(([key, value]) => (
          <div key={key}>
            <dt>{t(`containers.fact.${key}`)}</dt>
            <dd>{value || '—'}</dd>
          </div>
        ))}
      </dl>
      <details class="ctr-raw">
        <summary>{t('containers.raw')}</summary>
        <pre class="logs-text">{JSON.stringify(info, null, 2)}</pre>
      </details>
    </div>
  );
}
