import type { JobT, RepoT } from '../../shared/api.ts';
import type { SettingsT, WizardStateT } from '../../shared/settings.ts';
import type { CatalogueService, RepoInputT } from '../catalogue/catalogue.service.ts';
import { requireRole } from '../core/authorize.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { SettingsService } from './settings.service.ts';

export interface WizardGitInput {
  name?: string | undefined;
  url: string;
  branch?: string | undefined;
  subdirectory?: string | undefined;
  token?: string | undefined;
}

/** A repo name from its address when none is given: the last path part without `.git`. */
export function repoNameFromUrl(url: string): string {
  const last = url
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .split(/[/:]/)
    .at(-1);
  const name = (last ?? '').replace(/\.git$/, '').trim();
  return name || 'templates';
}

/** The first-run wizard: folders, a template repo, the first sync, done. Every step is also a plain service call. */
export function createWizardService(deps: { settings: SettingsService; catalogue: CatalogueService; events: EventBus }) {
  const { settings, catalogue, events } = deps;

  const mark = (actor: Actor, done: boolean, type: string): WizardStateT => {
    settings.setWizardDone(done);
    events.emit({ type, actor, source: 'settings', target: 'wizard', status: 'ok' });
    return { done, repos: catalogue.list().length };
  };

  return {
    state: (): WizardStateT => ({ done: settings.wizardDone(), repos: catalogue.list().length }),

    reset(actor: Actor): WizardStateT {
      requireRole(actor, 'admin', 'the setup wizard');
      return mark(actor, false, 'wizard.reset');
    },

    paths(actor: Actor, input: Parameters<SettingsService['setPaths']>[1]): SettingsT {
      requireRole(actor, 'admin', 'the setup wizard');
      return settings.setPaths(actor, input);
    },

    /** Adds the template repo; its first sync starts at once (the job is answered). */
    git(actor: Actor, input: WizardGitInput): { repo: RepoT; job: JobT } {
      requireRole(actor, 'admin', 'the setup wizard');
      const repo: RepoInputT = { ...input, name: input.name?.trim() || repoNameFromUrl(input.url) };
      return catalogue.add(actor, repo);
    },

    sync(actor: Actor): JobT[] {
      requireRole(actor, 'admin', 'the setup wizard');
      return catalogue.syncAll(actor);
    },

    complete(actor: Actor): WizardStateT {
      requireRole(actor, 'admin', 'the setup wizard');
      return mark(actor, true, 'wizard.completed');
    },
  };
}

export type WizardService = ReturnType<typeof createWizardService>;
