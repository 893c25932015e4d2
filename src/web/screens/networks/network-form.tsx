import { useId, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { problemText } from '../../components/network-problems.ts';
import type { HostNetworkT, NetworkProblemT } from '../../components/networks-api.ts';
import { useAction } from '../../components/use-action.ts';
import { TextField } from '../../forms/field.tsx';
import { nameProblem, refusalMarks, stillSays } from '../../forms/field-messages.ts';
import { t } from '../../i18n.ts';
import { HostNetworkBox } from './host-network.tsx';
import { createNetwork, type NetworkCreatedT, type NetworkPlan } from './networks-api.ts';
import { RangeHelper } from './range-helper.tsx';
import { ReviewPanel, shownReview, useReview } from './review-panel.tsx';

interface Props {
  /** The names of the networks there are: a new one cannot take them. */
  taken: readonly string[];
  host: HostNetworkT | null;
  hostError: string | null;
  /** False until the list (and with it the host's network) has been read. */
  loaded: boolean;
  onCreated: (created: NetworkCreatedT) => void;
  /** The confirmation of the last create, with the warnings of what was made of the input. */
  created: { name: string; warnings: NetworkProblemT[] } | null;
}

const EMPTY: NetworkPlan = { subnet: '', gateway: '', range: '', interface: '' };

/** A refused create: the first finding of the review in the user's language, else the usual error text. */
function Refusal({ error, id }: { error: unknown; id: string }) {
  if (error instanceof ApiError && error.code === 'network_invalid' && typeof error.params.code === 'string') {
    const p = { code: error.params.code, message: error.detail, params: error.params as Record<string, string | number> };
    return (
      <div class="error" role="alert" id={id}>
        <div class="error-body">
          <p>{t('error.network_invalid')}</p>
          <p class="error-detail">{problemText(p)}</p>
        </div>
      </div>
    );
  }
  return <ErrorMessage error={error} id={id} />;
}

/** A new shared network: the host's own network to start from, the fields with the live review, the range helper. */
export function NetworkForm({ taken, host, hostError, loaded, onCreated, created }: Props) {
  const ids = { title: useId(), review: useId(), error: useId() };
  const form = useRef<HTMLFormElement>(null);
  const [name, setName] = useState('');
  const [plan, setPlan] = useState<NetworkPlan>(EMPTY);
  const [nameMissing, setNameMissing] = useState(false);
  const [sentName, setSentName] = useState('');
  // Bumped on every create, so the range helper starts empty for the next network.
  const [round, setRound] = useState(0);
  const review = useReview(plan);
  const shown = shownReview(review);
  const blocked = shown !== null && shown.errors.length > 0;
  const set = (key: keyof NetworkPlan) => (value: string) => setPlan((old) => ({ ...old, [key]: value }));

  const typed = name.trim();
  const nameSays = nameProblem('network', typed, taken);
  const create = useAction(async () => {
    setSentName(typed);
    const answer = await createNetwork(typed, plan);
    setName('');
    setPlan(EMPTY);
    setRound((r) => r + 1);
    onCreated(answer);
  });
  const { busy } = create;

  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    if (typed === '' || nameSays) {
      setNameMissing(typed === '');
      form.current?.querySelector<HTMLInputElement>('[name="name"]')?.focus();
      return;
    }
    if (blocked) {
      document.getElementById(ids.review)?.scrollIntoView({ block: 'nearest' });
      return;
    }
    void create.run();
  };

  // A refused name is said at the name field (with the rule of network names); the rest in the box.
  const refused = refusalMarks(create.error, { known: ['name'], name: { field: 'name', kind: 'network', value: sentName } });
  const error = refused.rest;
  const bad = errorFields(error);
  const iface = plan.interface.trim();
  return (
    <form ref={form} class="card net-form" aria-labelledby={ids.title} onSubmit={(e) => void submit(e)} aria-busy={busy} noValidate>
      <h2 id={ids.title}>{t('networks.create_title')}</h2>
      <HostNetworkBox
        host={host}
        error={hostError}
        loaded={loaded}
        onUse={(h) => setPlan({ subnet: h.subnet, gateway: h.gateway ?? '', range: h.suggested_range ?? '', interface: h.interface })}
      />
      <div class="net-form-fields">
        <TextField
          label={t('networks.field.name')}
          name="name"
          value={name}
          onInput={(v) => {
            setName(v);
            setNameMissing(false);
          }}
          autocomplete="off"
          required
          hint={t('networks.name_hint')}
          error={nameSays ?? (nameMissing ? t('networks.name_missing') : stillSays(refused.marks, { name: sentName }, 'name', typed))}
        />
        <PlanFields plan={plan} set={set} bad={bad} errorId={ids.error} />
      </div>
      <p class="net-kind-will">{iface ? t('networks.kind_macvlan_will', { interface: iface }) : t('networks.kind_bridge_will')}</p>
      <ReviewPanel state={review} id={ids.review} />
      <RangeHelper key={round} onUse={set('range')} />
      <Created created={create.error ? null : created} />
      <Refusal error={error} id={ids.error} />
      <CreateButton busy={busy} blocked={blocked} reviewId={ids.review} />
    </form>
  );
}

const HINTS = { subnet: 'networks.subnet_hint', gateway: 'networks.gateway_hint', range: 'networks.range_hint', interface: 'networks.interface_hint' } as const;

/** The address plan's fields; the ones the server refused are marked and described by the refusal. */
function PlanFields(p: { plan: NetworkPlan; set: (key: keyof NetworkPlan) => (value: string) => void; bad: readonly string[]; errorId: string }) {
  return (
    <>
      {(['subnet', 'gateway', 'range', 'interface'] as const).map((key) => (
        <TextField
          key={key}
          label={t(`networks.field.${key}`)}
          name={key}
          value={p.plan[key]}
          onInput={p.set(key)}
          autocomplete="off"
          hint={t(HINTS[key])}
          required={key === 'subnet'}
          invalid={p.bad.includes(key)}
          errorId={p.errorId}
        />
      ))}
    </>
  );
}

/** The last create confirmed, with the warnings of what was made of the input; a live region, empty otherwise. */
function Created({ created }: { created: Props['created'] }) {
  return (
    <div role="status" class="net-form-status">
      {created && (
        <div class="notice">
          <p>{t('networks.created', { name: created.name })}</p>
          {created.warnings.length > 0 && (
            <ul>
              {created.warnings.map((w, i) => (
                <li key={`${w.code}-${i}`}>{problemText(w)}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** Create, held back (and said why) while the review finds errors. */
function CreateButton({ busy, blocked, reviewId }: { busy: boolean; blocked: boolean; reviewId: string }) {
  return (
    <div class="net-form-buttons">
      <button type="submit" class="btn btn-primary" aria-disabled={busy || blocked} aria-describedby={blocked ? reviewId : undefined}>
        {busy ? t('networks.creating') : t('networks.create')}
      </button>
      {blocked && <span class="net-blocked">{t('networks.create_blocked')}</span>}
    </div>
  );
}
