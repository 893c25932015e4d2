/** A tiny API client for tests: keeps the session cookie and sends the CSRF token like the interface does. */
export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

function connectionReset(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } } | null)?.cause;
  return ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(cause?.code ?? '');
}

export class ApiClient {
  cookie = '';
  csrf = '';
  constructor(readonly base: string) {}

  async call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    if (method !== 'GET' && this.csrf && !('X-CSRF-Token' in h)) h['X-CSRF-Token'] = this.csrf;
    if (body !== undefined && !h['content-type']) h['content-type'] = 'application/json';
    const send = () =>
      fetch(this.base + path, {
        method,
        headers: h,
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
    // A kept-alive connection the server closed (idle time-out, a Kade killed and started again on that port) can be
    // picked for the next request on a loaded machine; a GET is asked once more, as a browser does.
    const res = await send().catch((err: unknown) => {
      if (method !== 'GET' || !connectionReset(err)) throw err;
      return send();
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] ?? '';
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') ? await res.json() : await res.text();
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get = <T = any>(path: string) => this.call<T>('GET', path);
  post = <T = any>(path: string, body: unknown = {}) => this.call<T>('POST', path, body);
  put = <T = any>(path: string, body: unknown) => this.call<T>('PUT', path, body);
  del = <T = any>(path: string) => this.call<T>('DELETE', path);

  /** Creates the first account (or logs in when one exists) and keeps the session. */
  async loginAs(username = 'admin', password = 'correct-horse-battery'): Promise<void> {
    const status = await this.get<{ setup_required: boolean }>('/api/auth/status');
    const r = await this.post<{ csrf: string }>(status.body.setup_required ? '/api/auth/setup' : '/api/auth/login', { username, password });
    if (r.status !== 200 && r.status !== 201) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
    this.csrf = r.body.csrf;
  }

  /** Adds a template repo and waits until its first sync ended: the repo as the answer gave it, and the job. */
  async addRepo<R = any>(body: Record<string, string>): Promise<{ repo: R; job: Awaited<ReturnType<ApiClient['waitJob']>> }> {
    const r = await this.post<{ repo: R; job: { id: string } }>('/api/repos', body);
    if (r.status !== 202) throw new Error(`adding repo ${body.name} failed: ${r.status} ${JSON.stringify(r.body)}`);
    return { repo: r.body.repo, job: await this.waitJob(r.body.job.id) };
  }

  /** Adds a template repo (folder `apps`, branch main) and waits until its first sync succeeded. */
  async addSyncedRepo(name: string, url: string): Promise<void> {
    const { job } = await this.addRepo({ name, url, branch: 'main', subdirectory: 'apps' });
    if (job.state !== 'succeeded') throw new Error(`the first sync of ${name} ${job.state}:\n${job.log.join('\n')}`);
  }

  /**
   * An admin accepts the files of an app a test wrote by hand (Kade runs only files it wrote or an admin accepted:
   * stacks/compose-gate.ts).
   */
  async acceptFiles(name: string): Promise<void> {
    const r = await this.post(`/api/stacks/${encodeURIComponent(name)}/files/accept`, {});
    if (r.status !== 200) throw new Error(`accepting the files of ${name} failed: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /**
   * Deletes an app and waits for the job, for a test's clean-up: an app that is gone already, or a delete the server
   * refuses, is left as it is (the engine clean-up after it removes what is left).
   */
  async removeApp(name: string, opts: { removeData?: boolean; timeoutMs?: number } = {}): Promise<void> {
    const del = await this.del<{ job?: { id: string } }>(`/api/stacks/${name}${opts.removeData ? '?remove_data=1' : ''}`);
    if (del.status === 202 && del.body.job) await this.waitJob(del.body.job.id, opts.timeoutMs);
  }

  /** Polls a job until it ends; returns the job and its whole log. */
  async waitJob(id: string, timeoutMs = 120_000): Promise<{ state: string; log: string[]; error: string | null }> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const j = await this.get<{ state: string; error: string | null }>(`/api/jobs/${id}`);
      if (!['queued', 'running'].includes(j.body.state)) {
        const log = await this.get<{ lines: string[] }>(`/api/jobs/${id}/log?offset=0`);
        return { state: j.body.state, log: log.body.lines, error: j.body.error };
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`job ${id} did not end within ${timeoutMs} ms`);
  }
}
