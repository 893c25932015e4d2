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
   * engine, `project` on one project's label value.
   */
  listContainers(opts?: { composeOnly?: boolean; project?: string }): Promise<ContainerSummary[]>;
  inspectContainer(id: string): Promise<Record<string, unknown>>;
  /** An image by id or reference; null when the engine does not have it. */
  inspectImage(ref: string): Promise<ImageSummary | null>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string): Promise<void>;
  restartContainer(id: string): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** Demultiplexed log text; with follow, a stream of text chunks. */
  containerLogs(id: string, opts: LogOptions): Promise<NodeJS.ReadableStream>;
}

export const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';
export const COMPOSE_SERVICE_LABEL = 'com.docker.compose.service';
export const COMPOSE_WORKDIR_LABEL = 'com.docker.compose.project.working_dir';
