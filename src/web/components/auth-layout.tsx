import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import { Brand } from './brand.tsx';
import './auth-layout.css';
import { LanguageSwitch } from './language-switch.tsx';

/** The frame of the screens shown before anyone is logged in: brand, language, one card. */
export function AuthLayout({ title, children }: { title: string; children: ComponentChildren }) {
  const card = useRef<HTMLElement>(null);
  // The first field gets focus so typing can start at once; its label tells screen readers where they are.
  useEffect(() => card.current?.querySelector<HTMLInputElement>('input')?.focus(), []);
  return (
    <div class="auth-page">
      <header class="auth-top">
        <Brand />
        <LanguageSwitch />
      </header>
      <main id="main" class="auth-main">
        <section class="card auth-card" aria-labelledby="auth-title" ref={card}>
          <h1 id="auth-title">{title}</h1>
          {children}
        </section>
        <p class="tagline">{t('app.tagline')}</p>
      </main>
    </div>
  );
}
