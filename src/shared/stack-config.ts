/**
 * Shapes of the reconfigure, extras, editors, snapshots, credentials and adopt routes,
 * shared by the server (validation, OpenAPI) and the interface (types).
 */
import { z } from 'zod';
import { RepoCacheStatus } from './api.ts';
import { TemplateFile } from './template.ts';

const Value = z.union([z.string(), z.number(), z.boolean()]);

/** An image tag as registries accept it. */
export const TAG_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** An extra host folder of one service: the host path is refused when it is the engine socket, /etc, /proc, /sys or /boot. */
export const ExtraVolume = z.object({
  host: z.string().min(1).max(4096),
  container: z.string().min(1).max(4096),
  read_only: z.boolean().default(false),
});

/** The choices per service that survive every render (SPEC: Stack metadata file). */
export const ServiceChoices = z.object({
  /** An image tag chosen from the image's tags; null or absent keeps the template's tag. */
  tag: z.string().regex(TAG_PATTERN, 'an image tag: letters, digits, _ . and -').nullable().optional(),
  volumes: z.array(ExtraVolume).max(50).optional(),
  /** Host device paths under /dev, e.g. /dev/ttyUSB0 or /dev/serial/by-id/... */
  devices: z.array(z.string().min(1).max(4096)).max(50).optional(),
});

/** GET /api/stacks/{name}/config */
export const StackConfig = z.object({
  name: z.string(),
  adopted: z.boolean(),
  source: z.object({ repo: z.string(), app: z.string() }).nullable(),
  /**
   * The current form schema of the source template; null when the app was adopted or its
   * template is no longer in a repo cache (`schema_missing` says why: adopted, repo_missing, app_missing).
   */
  schema: z.object({ repo: z.string(), app: z.string(), template: TemplateFile }).nullable(),
  schema_missing: z.enum(['adopted', 'repo_missing', 'app_missing']).nullable(),
  /**
   * The stored form values. Secret values are read back from `.env` through the secret map and
   * included for admins only; for other roles they are left out and named in `secrets_hidden`,
   * and a reconfigure that leaves them out keeps them.
   */
  values: z.record(z.string(), Value),
  secrets_hidden: z.array(z.string()),
  template_version: z.string().nullable(),
  repo_status: RepoCacheStatus.nullable(),
  /** Per service of the compose file: the image it runs now and the stored choices. */
  services: z.array(
    z.object({
      name: z.string(),
      /** The image the compose file names now (with a chosen tag applied). */
      image: z.string().nullable(),
      /** The chosen tag; null when the template's tag is kept. */
      tag: z.string().nullable(),
      volumes: z.array(ExtraVolume),
      devices: z.array(z.string()),
      /** Whether the service is on any shared network (older clients read this). */
      shared_network: z.boolean(),
      /** The shared networks the service joined, with its own address there. */
      networks: z.array(z.object({ network: z.string(), ip: z.string().nullable() })),
    }),
  ),
  /** The shared networks the app joined. */
  networks: z.array(z.string()),
});

/** POST /api/stacks/{name}/reconfigure: new form values (secrets left out are kept) and the extras per service. */
/**
 * An admin's explicit, audited permission for host paths outside the app's own folders and ALLOWED_HOST_DIRS:
 * exactly the paths a `forbidden_path` refusal listed (its `confirm` param). Operators cannot use it.
 */
export const ConfirmOutsidePaths = z.array(z.string().max(4096)).max(100).optional();

export const ReconfigureRequest = z.object({
  values: z.record(z.string(), Value).default({}),
  services: z.record(z.string(), ServiceChoices).optional(),
  confirm_outside_paths: ConfirmOutsidePaths,
});

/** GET /api/stacks/{name}/services/{service}/tags */
export const ImageTags = z.object({
  service: z.string(),
  image: z.string(),
  /** The tag the service uses now (template tag or chosen tag). */
  current: z.string().nullable(),
  tags: z.array(z.string()),
  /** Where the tags came from: the registry's tag list, or the engine's local images when the registry cannot be asked. */
  source: z.enum(['registry', 'local']),
  /** Why the registry could not be asked (source local), or that its list was cut short. */
  note: z.string().nullable(),
});

/** GET and PUT /api/stacks/{name}/env and /compose */
export const FileContent = z.object({ content: z.string().max(512 * 1024) });
/** GET of the `.env` text: secret values masked unless revealed, and which keys were masked. */
export const EnvContent = FileContent.extend({ masked: z.array(z.string()) });
/** PUT of the compose or `.env` text: an admin confirms host paths outside the app here. */
export const FileSave = FileContent.extend({ confirm_outside_paths: ConfirmOutsidePaths });
/** POST of a snapshot restore (body optional). */
export const RestoreRequest = z.object({ confirm_outside_paths: ConfirmOutsidePaths });
export const FileSaved = z.object({ content: z.string(), snapshot: z.string() });

/** A copy of a stack's files taken before a change; the user can return to it. */
export const Snapshot = z.object({
  id: z.string(),
  stack: z.string(),
  created_at: z.string(),
  /** What was about to change: reconfigure, env_edit, compose_edit, restore. */
  reason: z.string(),
  files: z.array(z.string()),
});
export const SnapshotRestored = z.object({ restored: z.string(), snapshot: z.string() });

/** POST /api/stacks/{name}/files/accept: an admin accepts the app's files as they are now (judged first, audited). */
export const AcceptFilesRequest = z.object({ confirm_outside_paths: ConfirmOutsidePaths });
export const FilesAccepted = z.object({ accepted: z.string() });

/** GET /api/stacks/{name}/files: whether compose runs the app's files as they are now, and if not, the refusal. */
export const FilesVerdict = z.object({
  ok: z.boolean(),
  refusal: z.object({ code: z.string(), message: z.string(), params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) }).nullable(),
});
export type FilesVerdictT = z.infer<typeof FilesVerdict>;

/** GET /api/stacks/{name}/credentials */
export const StackCredentials = z.object({
  url: z.string().nullable(),
  username: z.string().nullable(),
  password: z.string().nullable(),
  /** Other values marked `credential`, or found by field name. */
  other: z.array(z.object({ field: z.string(), label: z.string(), value: z.string() })),
});

/** POST /api/stacks/adopt */
export const AdoptRequest = z.object({
  path: z.string().min(1).max(4096),
  name: z.string().optional(),
  confirm_outside_paths: ConfirmOutsidePaths,
});

/** GET /api/stacks/{name}/data: exactly what DELETE /api/stacks/{name}?remove_data=1 removes. */
export const StackData = z.object({
  folders: z.array(z.string()).describe("The app's own data folder DATA_DIR/<name> and bind sources below it that exist"),
  volumes: z.array(z.string()).describe("The named volumes of the app's compose project (never external ones)"),
});

export type ExtraVolumeT = z.infer<typeof ExtraVolume>;
export type ServiceChoicesT = z.infer<typeof ServiceChoices>;
export type StackConfigT = z.infer<typeof StackConfig>;
export type ReconfigureRequestT = z.infer<typeof ReconfigureRequest>;
export type ImageTagsT = z.infer<typeof ImageTags>;
export type SnapshotT = z.infer<typeof Snapshot>;
export type StackCredentialsT = z.infer<typeof StackCredentials>;
