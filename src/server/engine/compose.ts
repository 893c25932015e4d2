/** A compose project on disk: the stack directory and its compose file. */
export interface ComposeProject {
  name: string;
  dir: string;
  file: string;
  /** Files compose reads after `file` (e.g. the networks of an adopted app, kept in Kade's own state). */
  overrides?: string[];
  /** The app the project belongs to, when its name differs (an adopted app keeps its own project name). */
  stack?: string;
}

export interface ComposeRunOptions {
  onOutput?: (chunk: string) => void;
  timeoutMs?: number;
  /** Extra environment for this one run (e.g. DOCKER_CONFIG with registry credentials for a pull). */
  env?: Record<string, string>;
}

export type ComposeVariant = 'v2' | 'v1';

/** The compose CLI, behind the few operations Kade uses. */
export interface Compose {
  variant(): Promise<ComposeVariant>;
  /** The environment every run gets (compose interpolates from it before `.env`): the policy judges with the same map. */
  environment(): Readonly<Record<string, string>>;
  up(p: ComposeProject, opts?: ComposeRunOptions): Promise<void>;
  down(p: ComposeProject, opts?: ComposeRunOptions & { volumes?: boolean }): Promise<void>;
  start(p: ComposeProject, opts?: ComposeRunOptions): Promise<void>;
  stop(p: ComposeProject, opts?: ComposeRunOptions): Promise<void>;
  restart(p: ComposeProject, opts?: ComposeRunOptions): Promise<void>;
  pull(p: ComposeProject, opts?: ComposeRunOptions): Promise<void>;
  /** Validates the compose file as the CLI reads it; throws compose_invalid with the CLI's words. */
  validate(p: ComposeProject): Promise<void>;
}
