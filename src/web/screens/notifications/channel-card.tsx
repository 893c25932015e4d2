import { useId } from 'preact/hooks';
import { t } from '../../i18n.ts';
import { ChannelFields } from './channel-fields.tsx';
import { DeliveryHistory, TestOutcome } from './delivery.tsx';
import type { TestResultT } from './notifications-api.ts';
import type { ChannelDraft } from './notifications-model.ts';

interface Props {
  channel: ChannelDraft;
  /** Not yet saved: the server does not know it, so it has no history. */
  fresh: boolean;
  result: TestResultT | null;
  onChange: (patch: Partial<ChannelDraft>) => void;
  onRemove: () => void;
  problem: (field: string) => string | null;
}

/** How a channel is called on this screen: its name, else its kind. */
export const channelTitle = (c: ChannelDraft): string => c.name.trim() || t(`notify.channel.${c.kind}`);

/** Where a channel sends to, in a few characters: the host of its address or the recipient. */
function target(c: ChannelDraft): string {
  if (c.kind === 'email') return c.smtp.to.trim();
  try {
    return new URL(c.url.trim()).host;
  } catch {
    return '';
  }
}

/** One channel: what it is, on or off, its fields, the last test's answer and what it delivered. */
export function ChannelCard({ channel: c, fresh, result, onChange, onRemove, problem }: Props) {
  const heading = useId();
  const where = target(c);
  const title = channelTitle(c);
  return (
    <li class="nfy-channel" aria-labelledby={heading} data-channel={c.id} data-kind={c.kind}>
      <div class="nfy-channel-head">
        <h3 id={heading}>
          <span>{title}</span>
          <span class={`nfy-badge nfy-badge-${c.kind}`}>{t(`notify.channel.${c.kind}`)}</span>
          {where && <span class="muted small nfy-target">{where}</span>}
          {fresh && <span class="nfy-badge nfy-badge-new">{t('notify.new')}</span>}
        </h3>
        <div class="nfy-channel-tools">
          <label class="nfy-toggle">
            <input type="checkbox" name="enabled" checked={c.enabled} onChange={(e) => onChange({ enabled: e.currentTarget.checked })} />
            {t('notify.enabled')}
          </label>
          <button type="button" class="btn btn-small nfy-remove" aria-label={t('notify.remove_label', { name: title })} onClick={onRemove}>
            {t('notify.remove')}
          </button>
        </div>
      </div>
      <p class="muted small nfy-kind-hint">{t(`notify.channel_hint.${c.kind}`)}</p>
      {problem('') && <p class="field-error">{problem('')}</p>}
      <ChannelFields channel={c} onChange={onChange} problem={problem} />
      <TestOutcome result={result} enabled={c.enabled} />
      {!fresh && <DeliveryHistory history={c.history} />}
    </li>
  );
}
