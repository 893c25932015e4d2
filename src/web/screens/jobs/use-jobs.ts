import { useCallback, useEffect, useState } from 'preact/hooks';
import type { JobT } from '../../../shared/api.ts';
import { usePolled } from '../../components/use-polled.ts';
import { type JobFilters, jobFacets, listJobs, NO_FILTERS, PAGE } from './jobs-api.ts';

/** The filters and the job to open from the address (the app view links to /jobs?app=<name>). */
export function filtersFromSearch(search: string): { filters: JobFilters; open: string | null } {
  const q = new URLSearchParams(search);
  return { filters: { app: q.get('app') ?? '', kind: q.get('kind') ?? '', state: q.get('state') ?? '' }, open: q.get('job') };
}

function toSearch(f: JobFilters): string {
  const q = new URLSearchParams();
  if (f.app) q.set('app', f.app);
  if (f.kind) q.set('kind', f.kind);
  if (f.state) q.set('state', f.state);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The newest page of jobs under the filters, read again every few seconds, plus older pages asked for. */
export function useJobs() {
  const [{ filters, open }] = useState(() => filtersFromSearch(location.search));
  const [current, setCurrent] = useState<JobFilters>(filters);
  const fetcher = useCallback(() => listJobs(current), [current]);
  const newest = usePolled(fetcher, 5000);
  const facets = usePolled(jobFacets, 30_000);
  const [older, setOlder] = useState<JobT[]>([]);
  const [olderDone, setOlderDone] = useState(false);
  const [olderError, setOlderError] = useState<unknown>(null);

  useEffect(() => {
    setOlder([]);
    setOlderDone(false);
    // The address keeps the filters, so a reload or a shared link shows the same list.
    history.replaceState(null, '', `/jobs${toSearch(current)}`);
  }, [current]);

  const jobs = newest.data ? [...newest.data, ...older.filter((o) => !newest.data?.some((n) => n.id === o.id))] : null;
  const more = async () => {
    const last = jobs?.at(-1);
    if (!last) return;
    try {
      const page = await listJobs(current, last.started_at);
      setOlder((prev) => [...prev, ...page]);
      if (page.length < PAGE) setOlderDone(true);
    } catch (err) {
      setOlderError(err);
    }
  };
  const canMore = jobs !== null && !olderDone && jobs.length >= PAGE;
  return {
    filters: current,
    setFilter: (key: keyof JobFilters, value: string) => setCurrent((f) => ({ ...f, [key]: value })),
    clear: () => setCurrent(NO_FILTERS),
    jobs,
    error: newest.error ?? olderError,
    facets: facets.data,
    reload: newest.reload,
    open,
    more: canMore ? more : null,
  };
}
