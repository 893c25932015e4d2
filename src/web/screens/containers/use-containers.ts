import { usePolled } from '../../components/use-polled.ts';
import { type ContainerEntryT, listContainers } from './containers-api.ts';

export interface ContainersState {
  containers: ContainerEntryT[] | null;
  error: unknown;
  checkedAt: Date | null;
  reload: () => void;
}

/** All containers, read again while the page is visible. */
export function useContainers(intervalMs = 5000): ContainersState {
  const { data, ...rest } = usePolled(listContainers, intervalMs);
  return { containers: data, ...rest };
}
