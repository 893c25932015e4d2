/** Request and response shapes of the HTTP API: validated by the server, typed for the interface. */
import { z } from 'zod';
import { ERROR_CODES } from './errors.ts';
import { NAME_PATTERN, USER_NAME_PATTERN } from './names.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts';
import { StorePower } from './powers.ts';
import { ROLES } from './roles.ts';

export const Name = z.string().regex(NAME_PATTERN, 'lower-case letters, digits, _ and -, starting with a letter or digit, at most 63');
export const UserName = z.string().regex(USER_NAME_PATTERN, 'lower-case letters, digits, . @ _ and -, at most 63');

export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.enum(ERROR_CODES),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  fields: z.array(z.string()),
});

export const Role = z.enum(ROLES);
export const User = z.object({ name: z.string(), role: Role });

export const AuthStatus = z.object({
  setup_required: z.boolean(),
  user: User.nullable(),
  csrf: z.string().nullable(),
  sso: z.boolean(),
});

export const Credentials = z.object({
  username: UserName,
  password: z.string().min(1).max(1024),
});

export const LoginAnswer = z.object({ user: User, csrf: z.string() });

/** A new password: the rules of src/shared/passwords.ts. */
export const NewPassword = z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH);
export const UserEntry = z.object({ name: z.string(), role: Role, created_at: z.string(), last_login_at: z.string().nullable() });
export const NewUser = z.object({ name: UserName, password: NewPassword, role: Role });
export const UserChange = z
  .object({ role: Role.optional(), password: NewPassword.optional() })
  .refine((v) => v.role !== undefined || v.password !== undefined, { message: 'give a role, a password or both' });
export const PasswordChange = z.object({ current_password: z.string().min(1).max(MAX_PASSWORD_LENGTH), new_password: NewPassword });
export type UserEntryT = z.infer<typeof UserEntry>;

export const Health = z.object({ status: z.literal('ok'), version: z.string() });

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'interrupted'] as const;
export const Job = z.object({
  id: z.string(),
  kind: z.string(),
  stack: z.string().nullable(),
  state: z.enum(JOB_STATES),
  progress: z.number().min(0).max(1),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  error: z.string().nullable(),
  /** Who started the job and the client address: answered to admins only. */
  user: z.string().nullable().optional(),
  ip: z.string().nullable().optional(),
});
export const JobAccepted = z.object({ job: Job });
/** `GET /api/jobs`: narrowed by app, kind and state; `before` (a `started_at`) pages back. */
export const JobQuery = z.object({
  stack: Name.optional(),
  kind: z
    .string()
    .regex(/^[a-z][a-z0-9_.-]{0,63}$/)
    .optional(),
  state: z.enum(JOB_STATES).optional(),
  before: z.string().max(40).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
/** `GET /api/jobs/facets`: the apps and kinds that have jobs, for the filters. */
export const JobFacets = z.object({ stacks: z.array(z.string()), kinds: z.array(z.string()) });
export const JobLog = z.object({ lines: z.array(z.string()), next_offset: z.number().int(), done: z.boolean() });

export const RepoInput = z.object({
  /** Optional; must be a safe name (checked by the service, 400 `invalid_name`). Derived from `name` when absent. */
  id: z.string().max(100).optional(),
  name: z.string().min(1).max(100),
  url: z.string().min(1).max(2048),
  branch: z.string().min(1).max(255).optional(),
  subdirectory: z.string().max(255).optional(),
  token: z.string().max(4096).optional(),
  pinned_commit: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/)
    .optional(),
});

export const Repo = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  branch: z.string(),
  subdirectory: z.string(),
  has_token: z.boolean(),
  pinned_commit: z.string().nullable(),
  status: z.object({
    commit: z.string().nullable(),
    commit_date: z.string().nullable(),
    synced_at: z.string().nullable(),
    version: z.string().nullable(),
    outdated: z.boolean(),
    error: z.string().nullable(),
  }),
  outdated: z.boolean(),
  /** App folders of the cache left out of the store because they fail validation; `app` '' is the apps folder itself. */
  skipped: z.array(z.object({ app: z.string(), reason: z.string() })),
  /** The import report: the repo's format (another store's too, issue #17), apps found and imported, and why the others were refused. */
  import: z.object({
    format: z.enum(['kade', 'runtipi', 'casaos', 'portainer', 'cosmos', 'mixed']),
    found: z.number().int(),
    imported: z.number().int(),
    refused: z.array(z.object({ app: z.string(), reason: z.string() })),
    /** Per imported app, what of the other store's format was dropped or mapped. */
    notes: z.array(z.object({ app: z.string(), notes: z.array(z.string()) })),
    /** How many of the imported apps get powers over the host (the engine socket, host paths, privileged…): only an admin installs them. */
    with_powers: z.number().int(),
  }),
});

/** The formats of the stores Kade reads apps from (catalogue/import/importers.ts). */
export const STORE_FORMATS = ['kade', 'runtipi', 'casaos', 'portainer', 'cosmos'] as const;
export type StoreFormat = (typeof STORE_FORMATS)[number];

export const StoreApp = z.object({
  repo: z.string(),
  app: z.string(),
  name: z.string(),
  description: z.string(),
  /** The Dutch description when the template gives one; `description` is the English (or only) text. */
  description_nl: z.string().nullable(),
  version: z.string(),
  icon: z.string().nullable(),
  tags: z.array(z.string()),
  categories: z.array(z.string()),
  installed: z.array(z.string()),
  /** The format of the store the app comes from: Kade's own, or the store whose format Kade imported it from. */
  format: z.enum(STORE_FORMATS),
  /** Each power over the host the app gets with the values its form starts with; the install's review judges the values given. */
  powers: z.array(StorePower),
  /** Whether only an admin can install the app (its powers, under ALLOW_PRIVILEGED_APPS and the allowed host folders); false for an admin. */
  needs_admin: z.boolean(),
});

export const InstallRequest = z.object({
  repo: Name,
  app: Name,
  name: Name,
  values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  /** An admin's explicit, audited permission for host paths outside the app (the `confirm` param of a forbidden_path refusal). */
  confirm_outside_paths: z.array(z.string().max(4096)).max(100).optional(),
});

/**
 * The cache status of an installed app's template repo (SPEC Resources, Repo): the commit checked out, its date, when
 * the cache was last synchronised, the VERSION read from it, and whether that is older than the running Kade.
 */
export const RepoCacheStatus = z.object({
  commit: z.string().nullable(),
  commit_date: z.string().nullable(),
  synced_at: z.string().nullable(),
  version: z.string().nullable(),
  outdated: z.boolean(),
});
export type RepoCacheStatusT = z.infer<typeof RepoCacheStatus>;

export const STACK_STATUSES = ['running', 'partial', 'stopped', 'restarting', 'unknown', 'missing_compose'] as const;
export const StackContainer = z.object({
  id: z.string(),
  name: z.string(),
  service: z.string(),
  image: z.string(),
  state: z.string(),
  health: z.string().nullable(),
  ports: z.array(z.object({ host_ip: z.string().nullable(), host_port: z.number().nullable(), container_port: z.number(), protocol: z.string() })),
});
export const Stack = z.object({
  name: z.string(),
  status: z.enum(STACK_STATUSES),
  services: z.array(z.string()),
  url: z.string().nullable(),
  categories: z.array(z.string()),
  update: z.enum(['update', 'current', 'unknown']),
  /** When the registry check that gave `update` ran (ISO); null when the app was never checked. Results older than six hours stay, with their age. */
  update_checked_at: z.string().nullable(),
  source: z.object({ repo: z.string(), app: z.string() }).nullable(),
  repo_status: RepoCacheStatus.nullable(),
  /**
   * The version of the app's template the store holds now, when it differs from the one the app was installed or
   * last configured with (the version of Kade's template, or the store's own version field of an imported app):
   * saving the Configure form renders it. Null when they are the same, or either is unknown.
   */
  template_update: z.string().nullable(),
  adopted: z.boolean(),
  /** A code the interface translates: no_compose_file, compose_unreadable, engine_unreachable. */
  warning: z.string().nullable(),
  /** The app's last job when it failed or was cut off and the app does not run: what went wrong, so the user can try again or remove it. */
  failure: z
    .object({ job: z.string(), kind: z.string(), state: z.enum(['failed', 'interrupted']), message: z.string() })
    .nullable()
    .optional(),
});
export const StackDetail = Stack.extend({
  containers: z.array(StackContainer),
  /**
   * Changes whenever the app's compose file, `.env` or `.svc.json` changes (a restore, an edit, a reconfigure,
   * by anyone): an open Configure form or editor reads the files again when it moves.
   */
  files_version: z.string().nullable(),
});
export const UPDATE_STATES = ['update', 'current', 'unknown'] as const;
/** `POST /api/stacks/{name}/update-check`: the stack's state and how each image came out. */
export const StackUpdateCheck = z.object({
  name: z.string(),
  update: z.enum(UPDATE_STATES),
  images: z.array(
    z.object({
      image: z.string(),
      state: z.enum(UPDATE_STATES),
      /** compared, local_build, pinned, not_pulled, registry (the registry could not be asked), invalid_ref. */
      reason: z.string(),
      detail: z.string().nullable(),
      /** Kept in the week cache; failures never are. */
      cached: z.boolean(),
    }),
  ),
});
export type StackUpdateCheckT = z.infer<typeof StackUpdateCheck>;

export type JobT = z.infer<typeof Job>;
export type RepoT = z.infer<typeof Repo>;
export type StoreAppT = z.infer<typeof StoreApp>;
export type StackT = z.infer<typeof Stack>;
/** An app's update state as the list shows it: the last known result and its time. */
export type StackUpdateInfo = Pick<StackT, 'update' | 'update_checked_at'>;
export type StackDetailT = z.infer<typeof StackDetail>;
export type AuthStatusT = z.infer<typeof AuthStatus>;

/** Container ids and names as the engine accepts them; checked before any engine call. */
export const CONTAINER_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;
export const PortBinding = StackContainer.shape.ports.element;
export const ContainerEntry = z.object({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  state: z.string(),
  status: z.string(),
  health: z.string().nullable(),
  ports: z.array(PortBinding),
  /** ISO 8601 time the container was created. */
  created: z.string(),
  project: z.string().nullable(),
  service: z.string().nullable(),
  /** The managed stack (app) the container belongs to, or null. */
  stack: z.string().nullable(),
  managed: z.boolean(),
  /** Kade's own container: it cannot be stopped, restarted or deleted through the list. */
  own: z.boolean(),
});
export const ConnectableApp = z.object({
  stack: z.string(),
  source: z.object({ repo: z.string(), app: z.string() }).nullable(),
  containers: z.array(z.string()),
});
export type ContainerEntryT = z.infer<typeof ContainerEntry>;
export type ConnectableAppT = z.infer<typeof ConnectableApp>;
