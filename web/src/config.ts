/** Site texts that a later issue makes configurable; kept in one place until then. */
export const site = {
  title: 'My Personal Blog',
  copyrightYear: 2025,
} as const;
