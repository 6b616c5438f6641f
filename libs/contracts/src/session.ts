/** Browser storage keys for the session (SPEC.md §3 Session, §9). */
export const SessionKeys = { token: 'token', username: 'username', role: 'role' } as const;
