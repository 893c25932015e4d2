import type { StackT } from '../../../shared/api.ts';
import { listStacks } from '../../api.ts';
import { usePolled } from '../../components/use-polled.ts';

export interface StacksState {
  stacks: StackT[] | null;
  error: unknown;
  checkedAt: Date | null;
  reload: () => void;
}

const sortedStacks = async (): Promise<StackT[]> => [...(await listStacks())].sort((a, b) => a.name.localeCompare(b.name));

/** The installed apps, refreshed while the page is visible. */
export function useStacks(intervalMs = 5000): StacksState {
  const { data, ...rest } = usePolled(sortedStacks, intervalMs);
  return { stacks: data, ...rest };
}
