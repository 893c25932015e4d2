/**
 * After a login or a navigation, focus goes to the page heading (#page-title) instead of being lost on
 * <body>. A screen whose code is still loading has no heading yet: the wish is kept and fulfilled by the
 * screen once it has rendered.
 */
let pending = false;

export function focusPageTitle(): void {
  const el = document.getElementById('page-title');
  if (el) {
    pending = false;
    el.focus();
  } else {
    pending = true;
  }
}

/** Called by a screen that just rendered: moves the focus if a navigation asked for it meanwhile. */
export function focusPageTitleIfPending(): void {
  if (pending) focusPageTitle();
}
