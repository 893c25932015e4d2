import { useEffect, useId, useState } from 'preact/hooks';
import { errorText } from '../../components/error-message.tsx';
import { TextField } from '../../forms/field.tsx';
import { t } from '../../i18n.ts';
import { type RangeBlocksT, rangeBlocks } from './networks-api.ts';

const DELAY_MS = 300;
const LOOKS_LIKE_IP = /^\d{1,3}(\.\d{1,3}){3}$/;

type State = { kind: 'idle' } | { kind: 'checking' } | { kind: 'done'; blocks: RangeBlocksT } | { kind: 'failed'; error: unknown };

/**
 * A range must be one aligned block; from a first and a last address the server works out the nearest
 * two: the smallest block holding the whole wish ('ruim') and the largest block inside it ('krap').
 */
export function RangeHelper({ onUse }: { onUse: (cidr: string) => void }) {
  const id = useId();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [state, setState] = useState<State>({ kind: 'idle' });

  useEffect(() => {
    const a = from.trim();
    const b = to.trim();
    if (!LOOKS_LIKE_IP.test(a) || !LOOKS_LIKE_IP.test(b)) {
      setState({ kind: 'idle' });
      return;
    }
    let live = true;
    setState({ kind: 'checking' });
    const timer = setTimeout(() => {
      rangeBlocks(a, b).then(
        (blocks) => live && setState({ kind: 'done', blocks }),
        (error: unknown) => live && setState({ kind: 'failed', error }),
      );
    }, DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [from, to]);

  return (
    <details class="net-range-helper">
      <summary>{t('networks.range_title')}</summary>
      <p class="hint">{t('networks.range_intro')}</p>
      <div class="net-range-fields">
        <TextField label={t('networks.range_from')} name="range_from" value={from} onInput={setFrom} />
        <TextField label={t('networks.range_to')} name="range_to" value={to} onInput={setTo} />
      </div>
      <div role="status" id={`${id}-blocks`} class="net-range-result">
        {state.kind === 'checking' && <p class="muted">{t('networks.range_checking')}</p>}
        {state.kind === 'failed' && <p class="net-review-failed">{t('networks.range_failed', { error: errorText(state.error) })}</p>}
        {state.kind === 'done' && state.blocks.ruim.cidr === state.blocks.krap.cidr && (
          <ul class="net-range-blocks">
            <li>
              <div>{t('networks.range_exact', { cidr: state.blocks.ruim.cidr, addresses: state.blocks.ruim.addresses })}</div>
              <button type="button" class="btn btn-small" onClick={() => onUse(state.blocks.ruim.cidr)}>
                {t('networks.range_use', { cidr: state.blocks.ruim.cidr })}
              </button>
            </li>
          </ul>
        )}
        {state.kind === 'done' && state.blocks.ruim.cidr !== state.blocks.krap.cidr && (
          <ul class="net-range-blocks">
            <li>
              <div>
                <strong>{t('networks.range_ruim')}</strong>{' '}
                <span>
                  {t('networks.range_ruim_text', { cidr: state.blocks.ruim.cidr, addresses: state.blocks.ruim.addresses, gained: state.blocks.ruim.gained })}
                </span>
              </div>
              <button type="button" class="btn btn-small" onClick={() => onUse(state.blocks.ruim.cidr)}>
                {t('networks.range_use', { cidr: state.blocks.ruim.cidr })}
              </button>
            </li>
            <li>
              <div>
                <strong>{t('networks.range_krap')}</strong>{' '}
                <span>
                  {t('networks.range_krap_text', { cidr: state.blocks.krap.cidr, addresses: state.blocks.krap.addresses, missing: state.blocks.krap.missing })}
                </span>
              </div>
              <button type="button" class="btn btn-small" onClick={() => onUse(state.blocks.krap.cidr)}>
                {t('networks.range_use', { cidr: state.blocks.krap.cidr })}
              </button>
            </li>
          </ul>
        )}
      </div>
    </details>
  );
}
