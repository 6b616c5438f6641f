/** A route the gateway answers, as scripts/docs-api.mjs reads it from the controllers (or libs/federation). */
export interface GatewayRoute {
  method: string;
  /** Nest's `:id` written `{id}`, as docs/api.md writes it. */
  path: string;
  /** `signed by a server`: a federation inbox (an HTTP signature or an object integrity proof). */
  access: 'public' | 'signed-in' | 'admin' | 'signed by a server';
  /** The file that answers it, from the repository's root. */
  source: string;
}

export const MIDDLEWARE_ROUTES: GatewayRoute[];
export function gatewayRoutes(root?: string): GatewayRoute[];
export function federationRoutes(root?: string): GatewayRoute[];
export function documentedRoutes(root?: string): GatewayRoute[];
export function routeHeading(route: GatewayRoute): string;
export function headingAnchor(heading: string): string;
export const TABLE_START: string;
export const TABLE_END: string;
export function routeTable(routes: GatewayRoute[]): string;
export function withRouteTable(text: string, table: string): string;
