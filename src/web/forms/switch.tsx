import { useId } from 'preact/hooks';

/** An on/off switch with its label: a real checkbox with role=switch, drawn as a track (forms.css). */
export function Switch(p: { label: string; checked: boolean; onChange: (on: boolean) => void; class?: string }) {
  const id = useId();
  return (
    <label class={p.class ? `switch ${p.class}` : 'switch'} for={id}>
      <input id={id} type="checkbox" role="switch" checked={p.checked} aria-checked={p.checked} onChange={(e) => p.onChange(e.currentTarget.checked)} />
      <span class="switch-track" aria-hidden="true" />
      <span class="switch-label">{p.label}</span>
    </label>
  );
}
