import { useCallback, useEffect, useState } from 'preact/hooks';
import { listUsers, type UserEntryT } from './users-api.ts';

export interface UsersState {
  users: UserEntryT[] | null;
  error: unknown;
  reload: () => void;
}

/** The account list; `reload` after every change, so the screen shows what the server holds, not what it hoped for. */
export function useUsers(): UsersState {
  const [users, setUsers] = useState<UserEntryT[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);

  useEffect(() => {
    let live = true;
    listUsers().then(
      (list) => {
        if (!live) return;
        setUsers(list);
        setError(null);
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [round]);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { users, error, reload };
}
