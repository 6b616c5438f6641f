export const ADMIN_ROLE = 'admin';
/** The role every self-registered account gets, whatever the request says. */
export const DEFAULT_ROLE = 'user';

export function isAdmin(role: string | null | undefined): boolean {
  return role === ADMIN_ROLE;
}
