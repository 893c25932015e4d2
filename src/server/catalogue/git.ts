/** The git operations the template cache needs. */
export interface GitCommit {
  sha: string;
  date: string;
}

export interface GitSource {
  url: string;
  branch: string;
  /** Sent as an HTTP header through the environment; never on the command line or in a URL. */
  token?: string | undefined;
  pinnedCommit?: string | undefined;
}

export interface Git {
  /** Makes `dir` an exact copy of the branch head (or the pinned commit): clone or fetch + hard reset. */
  sync(source: GitSource, dir: string): Promise<GitCommit>;
}
