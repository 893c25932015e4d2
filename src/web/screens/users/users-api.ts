import type { UserEntryT } from '../../../shared/api.ts';
import type { Role } from '../../../shared/roles.ts';
import { request } from '../../api.ts';

export type { UserEntryT };

const path = (name: string) => `/api/users/${encodeURIComponent(name)}`;

export const listUsers = (): Promise<UserEntryT[]> => request<UserEntryT[]>('GET', '/api/users');

export const createUser = (name: string, password: string, role: Role): Promise<UserEntryT> =>
  request<UserEntryT>('POST', '/api/users', { name, password, role });

export const changeRole = (name: string, role: Role): Promise<UserEntryT> => request<UserEntryT>('PUT', path(name), { role });

export const resetPassword = (name: string, password: string): Promise<UserEntryT> => request<UserEntryT>('PUT', path(name), { password });

export const deleteUser = (name: string): Promise<void> => request<undefined>('DELETE', path(name));
