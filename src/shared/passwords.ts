/** Password rules shared by the server (which enforces them) and the interface (which explains them up front). */
export const MIN_PASSWORD_LENGTH = 8;
/** Bounds the scrypt input, so a huge password cannot be used to burn CPU. */
export const MAX_PASSWORD_LENGTH = 1024;
