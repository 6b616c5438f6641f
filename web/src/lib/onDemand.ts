/**
 * A part of the reader's pages that not every page shows (the carousel, the About forms): its
 * code is fetched the first time a page needs it, not with the first bundle. The route's loader
 * awaits load() (on the server too), so the page always draws the part itself, never a
 * placeholder; the browser loads the parts already in the server's HTML before hydrating it
 * (loadPartsIn), so hydration draws exactly what the server drew and nothing moves.
 */
export interface OnDemand<T> {
  load(): Promise<T>;
  /** The part's code, once load() has brought it. */
  get(): T | null;
}

const parts: { selector: string; part: OnDemand<unknown> }[] = [];

/** `selector` finds the part in a rendered page. */
export function onDemand<T>(selector: string, load: () => Promise<T>): OnDemand<T> {
  let code: T | null = null;
  let loading: Promise<T> | null = null;
  const part: OnDemand<T> = {
    load() {
      loading ??= load().then(
        (loaded) => (code = loaded),
        (error: unknown) => {
          loading = null; // the next page may try again
          throw error;
        },
      );
      return loading;
    },
    get: () => code,
  };
  parts.push({ selector, part });
  return part;
}

/** Loads the code of every part the rendered page in `root` holds. */
export function loadPartsIn(root: ParentNode): Promise<unknown> {
  return Promise.all(
    parts.filter(({ selector }) => root.querySelector(selector)).map(({ part }) => part.load()),
  );
}
