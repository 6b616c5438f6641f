// Fedify's types use the global Temporal (TypeScript's lib.esnext.temporal), Node 24 has none at run
// time, and Fedify checks `instanceof` against @js-temporal/polyfill: that one polyfill, made global.
// When Node ships a native Temporal, `??=` keeps it and Fedify's checks may fail: revisit then.
import { Temporal as Polyfill } from '@js-temporal/polyfill';

const g = globalThis as { Temporal?: unknown };
g.Temporal ??= Polyfill;
