import type { Plugin } from 'vite';

const ROUTER_PRODUCTION_FILE = /[\\/]react-router[\\/]dist[\\/]production[\\/][^\\/]+\.mjs$/;
/** `Link.displayName = "Link";`: a name for React's developer tools, alone on its line. */
const DISPLAY_NAME = /^[\w$]+\.displayName = "[\w.$]+";$/gm;
/** `var Form = React10.forwardRef(`: a component made at module level. */
const FORWARD_REF = /^(var [\w$]+ = )(React\d*\.forwardRef\()/gm;

/**
 * Lets the bundler drop the react-router components the app does not use. Its production
 * build makes `Link`, `NavLink`, `Form` and the rest with an unannotated `forwardRef(...)`
 * call and then names each one (`X.displayName = "X"`); either statement counts as a side
 * effect, so every reader downloaded all of them, with the code they reach (form submission,
 * framework-mode prefetching): about 3 KB compressed. This marks the calls pure and removes
 * the names, which only React's developer tools read.
 *
 * Lines keep their place (`map: null` keeps the file's source map), and a router whose build
 * no longer has this shape fails the build instead of silently growing the bundle.
 */
export function routerTreeShaking(): Plugin {
  return {
    name: 'blog-router-tree-shaking',
    transform: {
      filter: { id: ROUTER_PRODUCTION_FILE },
      handler(code, id) {
        if (!code.includes('.forwardRef(')) return null;
        let components = 0;
        const shaken = code
          .replace(DISPLAY_NAME, '')
          .replace(FORWARD_REF, (_, declaration: string, call: string) => {
            components++;
            return `${declaration}/* @__PURE__ */ ${call}`;
          });
        if (components === 0)
          throw new Error(`${id}: no module-level forwardRef components found to mark pure`);
        return { code: shaken, map: null };
      },
    },
  };
}
