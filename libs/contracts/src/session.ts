/** Browser storage keys for the session (docs/product.md#the-session, #limits-and-timings). */
export const SessionKeys = { token: 'token', username: 'username', role: 'role' } as const;
