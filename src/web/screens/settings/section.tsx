import type { ComponentChildren } from 'preact';

/** One group of the settings form: a card with a title, an intro and its fields in as many columns as fit. */
export function Section({ id, title, intro, children }: { id: string; title: string; intro?: string; children: ComponentChildren }) {
  return (
    <section class="card settings-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {intro && <p class="muted section-intro">{intro}</p>}
      <div class="settings-grid">{children}</div>
    </section>
  );
}
