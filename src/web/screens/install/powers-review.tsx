import { useEffect, useState } from 'preact/hooks';
import type { AppPowersT, PowerUseT } from '../../shared/powers.ts';
import type { FieldValue } from '../../shared/template.ts';
import { request } from '../api.ts';
import { t } from '../i18n.ts';
import './powers-warning.css';

const seg = encodeURIComponent;

/** One power in words, naming the service that gets it. */
function line(p: PowerUseT): string {
  const { service, value } = p;
  switch (p.power) {
    case 'privileged':
      return t('powers.privileged', { service });
    case 'network_mode':
      return t('powers.network_mode', { service, value });
    case 'pid':
      return t('powers.pid', { service, value });
    case 'ipc':
      return t('powers.ipc', { service, value });
    case 'uts':
      return t('powers.uts', { service });
    case 'userns_mode':
      return t('powers.userns_mode', { service });
    case 'cgroup':
      return t('powers.cgroup', { service });
    case 'cap_add':
      return t('powers.cap_add', { service, value });
    case 'security_opt':
      return t('powers.security_opt', { service, value });
    case 'devices':
      return t('powers.devices', { service, value });
    case 'engine_socket':
      return t('powers.engine_socket', { service, value });
  }
}

/**
 * The install review's warning: each power over the host the app would get with these values, as the server
 * renders it (POST /api/store/apps/{repo}/{app}/powers), and whether this user may install it. Nothing when none.
 */
export function PowersWarning({ repo, app, values }: { repo: string; app: string; values: Record<string, FieldValue> }) {
  const [answer, setAnswer] = useState<AppPowersT | null>(null);
  const key = JSON.stringify(values);
  useEffect(() => {
    let live = true;
    setAnswer(null);
    // A refusal (a value the server rejects) is shown by the install itself; the warning then stays away.
    request<AppPowersT>('POST', `/api/store/apps/${seg(repo)}/${seg(app)}/powers`, { values })
      .then((a) => live && setAnswer(a))
      .catch(() => live && setAnswer({ powers: [], allowed: true }));
    return () => {
      live = false;
    };
  }, [repo, app, key]);
  if (!answer) return <p class="muted powers-checking">{t('powers.checking')}</p>;
  if (answer.powers.length === 0) return null;
  return (
    <div class="powers-warning" role="alert" aria-labelledby="powers-title">
      <h3 id="powers-title">{t('powers.title')}</h3>
      <p>{t('powers.intro')}</p>
      <ul>
        {answer.powers.map((p) => (
          <li key={`${p.service} ${p.power} ${p.value}`}>{line(p)}</li>
        ))}
      </ul>
      {!answer.allowed && <p class="powers-admin">{t('powers.admin_only')}</p>}
    </div>
  );
}
