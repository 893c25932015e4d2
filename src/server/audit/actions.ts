/**
 * Event type → audit action. Actions are short snake_case verbs that stay stable when an event is
 * renamed, so filters, saved links and the translated labels keep working; the event's `source`
 * tells which domain the verb applied to (a repo `delete` versus an app `delete`). Every action here
 * has a label `audit.action.<action>` in the web messages. An event missing from the table is written
 * with its raw type, which the interface then shows untranslated.
 */
export const AUDIT_ACTIONS: Readonly<Record<string, string>> = {
  // Accounts
  'user.login': 'login',
  'user.logout': 'logout',
  'user.created': 'add',
  'user.updated': 'edit',
  'user.role_changed': 'role_change',
  'user.password_changed': 'password_change',
  'user.deleted': 'delete',
  // Template repos
  'repo.added': 'add',
  'repo.edited': 'edit',
  'repo.deleted': 'delete',
  'repo.synced': 'sync',
  // Apps (stacks); the operations emit their verb as `stack.<op>`
  'stack.installed': 'install',
  'stack.start': 'start',
  'stack.stop': 'stop',
  'stack.restart': 'restart',
  'stack.updated': 'update',
  'stack.deleted': 'delete',
  'stack.reconfigured': 'reconfigure',
  'stack.connected': 'connect',
  'stack.adopted': 'adopt',
  'stack.env_edited': 'env_edit',
  'stack.env_revealed': 'env_reveal',
  'stack.compose_edited': 'compose_edit',
  'stack.credentials_viewed': 'credentials_view',
  'stack.snapshot_restored': 'restore',
  'stack.outside_path_allowed': 'outside_path_allow',
  'stack.powers_allowed': 'powers_allow',
  'stack.files_refused': 'files_refuse',
  'stack.files_accepted': 'files_accept',
  // Containers outside apps
  'container.start': 'start',
  'container.stop': 'stop',
  'container.restart': 'restart',
  'container.deleted': 'delete',
  // Shared networks
  'network.created': 'add',
  'network.taken_over': 'add',
  'network.deleted': 'delete',
  // Backups
  'backup.created': 'backup',
  'backup.failed': 'backup',
  'backup.verified': 'verify',
  'backup.restored': 'restore',
  'backup.deleted': 'delete',
  // Settings and the setup wizard
  'settings.updated': 'edit',
  // Notification channels and rules (a test saves them too)
  'notifications.updated': 'edit',
  'wizard.completed': 'wizard_complete',
  'wizard.reset': 'wizard_reset',
  // Background work
  'job.failed': 'job_failed',
  // The container engine
  'engine.restart': 'engine_restart',
};

// A Map, so an event type such as `constructor` cannot pick up an Object.prototype member.
const BY_TYPE = new Map(Object.entries(AUDIT_ACTIONS));

/** The audit action of an event type; the raw type when the table does not know it. */
export function auditAction(eventType: string): string {
  return BY_TYPE.get(eventType) ?? eventType;
}

/** Every distinct action of the table, for the test that each one has a label. */
export const KNOWN_ACTIONS: readonly string[] = [...new Set(Object.values(AUDIT_ACTIONS))].sort();
