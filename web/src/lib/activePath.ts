/**
 * Is `here` (a location's path) the page of `path`, or, unless `end`, a page below it?
 * Case-insensitive, as react-router's own NavLink: `/Garage/motorcycles` is below `/garage`.
 */
export function isActivePath(here: string, path: string, end = false): boolean {
  const location = here.toLowerCase();
  const target = path.toLowerCase();
  if (location === target) return true;
  if (end || !location.startsWith(target)) return false;
  const slash = target !== '/' && target.endsWith('/') ? target.length - 1 : target.length;
  return location.charAt(slash) === '/';
}
