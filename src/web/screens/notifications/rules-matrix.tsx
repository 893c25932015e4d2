import { t } from '../../i18n.ts';
import { channelTitle } from './channel-card.tsx';
import { kindText } from './delivery.tsx';
import { type ChannelDraft, hasRules } from './notifications-model.ts';

interface Props {
  kinds: readonly string[];
  channels: ChannelDraft[];
  rules: Record<string, string[]>;
  stuckAfter: number;
  onToggle: (kind: string, id: string, on: boolean) => void;
  problem: string | null;
}

/** Kinds down, channels across: a tick sends that kind over that channel; a column without ticks gets every kind. */
export function RulesMatrix({ kinds, channels, rules, stuckAfter, onToggle, problem }: Props) {
  return (
    <section class="card nfy-section" aria-labelledby="nfy-rules">
      <h2 id="nfy-rules">{t('notify.rules')}</h2>
      <p class="muted small">{t('notify.rules_intro')}</p>
      <p class="muted small">{t('notify.rules_stuck', { minutes: stuckAfter })}</p>
      {channels.length === 0 ? (
        <p class="muted">{t('notify.rules_empty')}</p>
      ) : (
        <div class="nfy-table-wrap">
          <table class="nfy-table nfy-matrix">
            <thead>
              <tr>
                <th scope="col">{t('notify.rules_kind')}</th>
                {channels.map((c) => (
                  <th scope="col" key={c.id} data-channel={c.id}>
                    <span class="nfy-matrix-name">{channelTitle(c)}</span>
                    {!hasRules(rules, c.id) && <span class="nfy-matrix-all">{t('notify.rules_all')}</span>}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {kinds.map((kind) => (
                <tr key={kind} data-kind={kind}>
                  <th scope="row">{kindText(kind)}</th>
                  {channels.map((c) => (
                    <td key={c.id}>
                      <input
                        type="checkbox"
                        checked={(rules[kind] ?? []).includes(c.id)}
                        aria-label={t('notify.rule_label', { kind: kindText(kind), channel: channelTitle(c) })}
                        onChange={(e) => onToggle(kind, c.id, e.currentTarget.checked)}
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {problem && <p class="field-error">{problem}</p>}
    </section>
  );
}
