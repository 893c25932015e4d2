/** What Kade needs from a container engine; the Docker adapter implements it for one endpoint. */
export interface PortBinding {
  host_ip: string | null;
  host_port: number | null;
  container_port: number;
  protocol: string;
}

export interface ContainerSummary {
  id: string;
  name: string;
  image: string;
  state: string;
  status: string;
  health: string | null;
  ports: PortBinding[];
  labels: Record<string, string>;
  project: string | null;
  service: string | null;
  workingDir: string | null;
  created: number;
  /** The networks the container is attached to, each with its IPv4 address there (null when it has none). */
  networks?: Record<string, string | null>;
}

/** One IPAM entry of a network. */
export interface NetworkSubnet {
  subnet: string;
  gateway: string | null;
  range: string | null;
}

export interface NetworkSummary {
  id: string;
  name: string;
  driver: string;
  subnets: NetworkSubnet[];
  /** The host interface of a macvlan network (`parent` option). */
  parent: string | null;
  labels: Record<string, string>;
}

/** A network to create: a bridge, or macvlan on `parent` (the host interface). */
export interface NetworkSpec {
  name: string;
  driver: 'bridge' | 'macvlan';
  subnet: string | null;
  gateway: string | null;
  range: string | null;
  parent: string | null;
  labels: Record<string, string>;
}

export interface EngineInfo {
  version: string;
  apiVersion: string;
}

export interface LogOptions {
  tail?: number;
  since?: number;
  follow?: boolean;
  /** Prefix every line with the engine's RFC 3339 time stamp, for merging several logs in order. */
  timestamps?: boolean;
}

/** What an update check needs of a local image. */
export interface ImageSummary {
  id: string;
  /** `name@sha256:...`, one per repository the image was pulled from or pushed to; empty when built locally. */
  repoDigests: string[];
}

export interface Engine {
  ping(): Promise<EngineInfo>;
  /**
   * One listing of every container; `composeOnly` filters on the compose project label in the
   * engine, `project` on one project's label value, `ids` to just these containers (full ids).
   */
  listContainers(opts?: { composeOnly?: boolean; project?: string; ids?: string[] }): Promise<ContainerSummary[]>;
  inspectContainer(id: string): Promise<Record<string, unknown>>;
  /** An image by id or reference; null when the engine does not have it. */
  inspectImage(ref: string): Promise<ImageSummary | null>;
  /** The tags the engine has of one repository, named as in an image reference without tag (`nginx`, `ghcr.io/o/app`). */
  listImageTags(repository: string): Promise<string[]>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string): Promise<void>;
  restartContainer(id: string): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** Demultiplexed log text; with follow, a stream of text chunks. */
  containerLogs(id: string, opts: LogOptions): Promise<NodeJS.ReadableStream>;
  /**
   * Runs a command inside a running container and waits for it. Secrets belong in `env` or
   * `stdin`, never in `cmd`: the argument list is visible to every process in the container.
   */
  exec(containerId: string, opts: ExecOptions): Promise<ExecResult>;
  /**
   * Runs a command inside a running container with its output as a stream, for data of any size
   * (database dumps). `stdout` is demultiplexed and read with backpressure: the command waits while
   * nobody reads, so the caller must consume it for `done` to settle. Destroying `stdout` drops the
   * connection; a dropped connection makes `stdout` emit an error. `done` gives the exit code and the
   * first EXEC_OUTPUT_LIMIT bytes of stderr. Secrets belong in `env` or `stdin`, never in `cmd`.
   */
  execStream(containerId: string, opts: ExecStreamOptions): Promise<ExecStream>;
  /** The names of the volumes that carry one compose project's label. */
  listVolumes(opts: { project: string }): Promise<string[]>;
  /** Removes one volume; a volume that is gone already is fine. */
  removeVolume(name: string): Promise<void>;
  /** Every network of the engine, with its address plan. */
  listNetworks(): Promise<NetworkSummary[]>;
  /** Creates a network; the engine's refusal (overlapping pool, unknown interface) is `network_invalid` with its words. */
  createNetwork(spec: NetworkSpec): Promise<void>;
  /** Removes a network; one that is gone already is fine, one still in use is `network_in_use`. */
  removeNetwork(name: string): Promise<void>;
  /**
   * The engine's event stream of containers that carry a compose project label: `actions` (die, stop, oom, start, …)
   * from `since` (Unix seconds with fraction, as the engine's `timeNano` gives) on. The stream ends when the engine
   * goes away; `close()` ends it from this side.
   */
  containerEvents(opts: { actions: string[]; since?: string }): Promise<ContainerEventStream>;
  /**
   * Creates a container (not started) and answers its id. A missing image is `not_found` (what: image), a name
   * taken is `conflict`. Every container runs under an init.
   */
  createContainer(spec: ContainerSpec): Promise<string>;
  /**
   * Runs a short-lived container to its end (the probe and helper containers): created, its output attached,
   * started, waited for; removed afterwards, also when it fails or hangs past `timeoutMs` (then `engine_unreachable`
   * with params.reason `timeout`). A missing image is `not_found` (what: image); the image is never pulled here.
   */
  runContainer(spec: ContainerSpec, opts: RunOptions): Promise<RunResult>;
  /**
   * Pulls `ref` (a tag or digest; `latest` when it has neither) and waits for the end of its progress stream: a pull
   * fails inside that stream as often as at its start: both are `registry_unreachable` with the engine's words
   * (`engine_unreachable` when the engine itself cannot be reached).
   * `onStep` gets the status lines that say something (layer progress repeats by the hundred and is left out).
   */
  pullImage(ref: string, opts?: PullOptions): Promise<void>;
}

/** A container to create; what is left out is the engine's default. */
export interface ContainerSpec {
  image: string;
  cmd: string[];
  name?: string;
  /** Instead of the image's entrypoint. */
  entrypoint?: string[];
  workingDir?: string;
  /** name or uid[:gid]; the image's user when absent. */
  user?: string;
  /** `NAME=value` entries. */
  env?: string[];
  labels?: Record<string, string>;
  /** `none`, `host`, or a network's name; the engine's default bridge when absent. */
  network?: string;
  /** In the host's PID namespace. */
  hostPid?: boolean;
  /** `none`: every capability dropped and no new privileges; `privileged`: full powers over the host; default: the engine's. */
  powers?: 'none' | 'default' | 'privileged';
  readOnlyRoot?: boolean;
  memoryBytes?: number;
  /** The engine removes the container when it exits (also when Kade is gone by then). */
  autoRemove?: boolean;
  mounts?: MountSpec[];
  /** Ports the container exposes, `80/tcp`; those in `publish` are exposed too. */
  expose?: string[];
  publish?: { port: string; hostIp: string; hostPort: number }[];
}

export interface MountSpec {
  type: 'bind' | 'volume';
  source: string;
  target: string;
  readOnly?: boolean;
}

export interface RunOptions {
  timeoutMs: number;
  /** Each output stream is cut off after this many bytes; default EXEC_OUTPUT_LIMIT. */
  outputLimit?: number;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The account for a registry, in the engine's own shape (X-Registry-Auth). */
export interface PullAuth {
  username: string;
  password: string;
  serveraddress: string;
}

export interface PullOptions {
  auth?: PullAuth | undefined;
  onStep?: (line: string) => void;
}

/** One container event of the engine. */
export interface ContainerEvent {
  action: string;
  id: string;
  /** The container's name, without the leading slash. */
  name: string;
  labels: Record<string, string>;
  /** Nanoseconds since the epoch, as a decimal string (exact where a number is not). */
  timeNano: string;
  exitCode: number | null;
}

export interface ContainerEventStream {
  events: AsyncIterable<ContainerEvent>;
  close(): void;
}

export interface ExecOptions {
  cmd: string[];
  /** `NAME=value` entries added to the container's environment. */
  env?: string[];
  /** User (name or uid[:gid]) inside the container; the container's own user when absent. */
  user?: string;
  /** Written to the command's standard input, which is then closed. */
  stdin?: string;
  /** Default 60 s. */
  timeoutMs?: number;
}

export interface ExecStreamOptions {
  cmd: string[];
  /** `NAME=value` entries added to the container's environment. */
  env?: string[];
  /** User (name or uid[:gid]) inside the container; the container's own user when absent. */
  user?: string;
  /** Piped to the command's standard input with backpressure; standard input is closed at its end. */
  stdin?: NodeJS.ReadableStream;
}

export interface ExecStream {
  stdout: NodeJS.ReadableStream;
  /** Settles once the output has ended (all of it read or buffered) and the engine has the exit code. */
  done: Promise<{ exitCode: number; stderr: string }>;
}

/** Output of an exec; each stream is cut off after EXEC_OUTPUT_LIMIT bytes. */
export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export const EXEC_OUTPUT_LIMIT = 256 * 1024;

export const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';
export const COMPOSE_SERVICE_LABEL = 'com.docker.compose.service';
export const COMPOSE_WORKDIR_LABEL = 'com.docker.compose.project.working_dir';
