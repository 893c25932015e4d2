import { useLoaded } from '../../components/use-loaded.ts';
import { listUsers, type UserEntryT } from './users-api.ts';

export interface UsersState {
  users: UserEntryT[] | null;
  error: unknown;
  reload: () => void;
}

/** The account list; `reload` after every change, so the screen shows what the server holds, not what it hoped for. */
export function useUsers(): UsersState {
  const { data: users, error, reload } = useLoaded(listUsers);
  return { users, error, reload };
}
