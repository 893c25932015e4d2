import type { JobT, RepoT } from '../../shared/api.ts';
import { roleAllows } from '../../shared/roles.ts';
import type { SettingsT, WizardStateT } from '../../shared/settings.ts';
import type { CatalogueService, RepoInputT } from '../catalogue/catalogue.service.ts';
import { AppError } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { SettingsService } from './settings.service.ts';

export interface WizardGitInput {
  name?: string | undefined;
  url: string;
  branch?: string | undefined;
  subdirectory?: string | undefined;
  token?: string | undefined;
}

function requireAdmin(actor: Actor): void {
  if (!roleAllows(actor.role, 'admin')) throw new AppError('forbidden', 'the setup wizard needs the role admin', { params: { role: 'admin' } });
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
      requireAdmin(actor);
      return mark(actor, false, 'wizard.reset');
    },

    paths(actor: Actor, input: Parameters<SettingsService['setPaths']>[1]): SettingsT {
      requireAdmin(actor);
      return settings.setPaths(actor, input);
    },

    /** Adds the template repo; its first sync starts at once (the job is answered). */
    git(actor: Actor, input: WizardGitInput): { repo: RepoT; job: JobT } {
      requireAdmin(actor);
      const repo: RepoInputT = { ...input, name: input.name?.trim() || repoNameFromUrl(input.url) };
      return catalogue.add(actor, repo);
    },

    sync(actor: Actor): JobT[] {
      requireAdmin(actor);
      return catalogue.syncAll(actor);
    },

    complete(actor: Actor): WizardStateT {
      requireAdmin(actor);
      return mark(actor, true, 'wizard.completed');
    },
  };
}

export type WizardService = ReturnType<typeof createWizardService>;
