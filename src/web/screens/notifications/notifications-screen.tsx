import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { t } from '../../i18n.ts';
import { ChannelCard } from './channel-card.tsx';
import { CHANNEL_KINDS, KINDS, removeChannel, toggleRule } from './notifications-model.ts';
import { RulesMatrix } from './rules-matrix.tsx';
import { SaveBar } from './save-bar.tsx';
import { fieldProblems, useNotifications } from './use-notifications.ts';
import './notifications.css';

type Notify = ReturnType<typeof useNotifications>;

/** Where messages go: the channels with their test and history, and which kinds each receives. Admins only. */
export function NotificationsScreen() {
  const n = useNotifications();
  const { view, form, state, edit } = n;
  const kinds: readonly string[] = view?.kinds.length ? view.kinds : KINDS;
  const { problemOf, rulesProblem, atFields } = fieldProblems(n);
  return (
    <section class="page notifications-page" aria-labelledby="page-title">
      <PageHead title={t('notify.title')} />
      <p class="muted nfy-intro">{t('notify.intro')}</p>
      <LoadState error={n.loadError} loading={!form} text={t('notify.loading')} />
      {form && (
        <form
          class="nfy-form"
          noValidate
          aria-busy={state.kind === 'busy'}
          onSubmit={(e) => {
            e.preventDefault();
            void n.submit('save');
          }}
        >
          <Channels n={n} problemOf={problemOf} />
          <RulesMatrix
            kinds={kinds}
            channels={form.channels}
            rules={form.rules}
            stuckAfter={view?.stuck_after_minutes ?? 0}
            problem={rulesProblem}
            onToggle={(kind, id, on) => edit((f) => ({ ...f, rules: toggleRule(f.rules, kind, id, on) }))}
          />
          <SaveBar state={state} dirty={n.dirty} atFields={atFields} onTest={() => void n.submit('test')} />
        </form>
      )}
    </section>
  );
}

/** The channels, each with its fields, test result and history, and the buttons that add one of each kind. */
function Channels({ n, problemOf }: { n: Notify; problemOf: (id: string) => (field: string) => string | null }) {
  const channels = n.form?.channels ?? [];
  const saved = new Set(n.view?.channels.map((c) => c.id) ?? []);
  return (
    <section class="card nfy-section" aria-labelledby="nfy-channels">
      <h2 id="nfy-channels" tabIndex={-1}>
        {t('notify.channels')}
      </h2>
      {channels.length === 0 ? (
        <p class="muted nfy-empty">{t('notify.channels_empty')}</p>
      ) : (
        <ul class="nfy-channels" aria-label={t('notify.channels')}>
          {channels.map((c) => (
            <ChannelCard
              key={c.id}
              channel={c}
              fresh={!saved.has(c.id)}
              result={n.results.get(c.id) ?? null}
              onChange={(p) => n.patch(c.id, p)}
              onRemove={() => {
                n.edit((f) => removeChannel(f, c.id));
                document.getElementById('nfy-channels')?.focus();
              }}
              problem={problemOf(c.id)}
            />
          ))}
        </ul>
      )}
      <fieldset class="nfy-add">
        <legend class="nfy-add-label">{t('notify.add')}</legend>
        {CHANNEL_KINDS.map((k) => (
          <button key={k} type="button" class="btn btn-small" aria-label={t(`notify.add_label.${k}`)} onClick={() => n.add(k)}>
            + {t(`notify.channel.${k}`)}
          </button>
        ))}
      </fieldset>
    </section>
  );
}
