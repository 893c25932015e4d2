/** Names of stacks, instances and repos (API.md): safe as a directory and a compose project. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Docker's own rule for network names, which also keeps them safe in compose files. */
export const NETWORK_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$/;
/** User names may also carry '.' and '@'. */
export const USER_NAME_PATTERN = /^[a-z0-9][a-z0-9_.@-]{0,62}$/;

export const isSafeName = (s: string): boolean => NAME_PATTERN.test(s);
