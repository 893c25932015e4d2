import type { ComponentChildren } from 'preact';

/** A screen's heading, where the focus goes after a navigation, with the screen's tools (refresh and the like) beside it. */
export function PageHead({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="page-head">
      <h1 id="page-title" tabIndex={-1}>
        {title}
      </h1>
      {children !== undefined && <div class="page-tools">{children}</div>}
    </div>
  );
}
