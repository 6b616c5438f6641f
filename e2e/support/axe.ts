import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let source: Promise<string> | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page and returns its serious and critical violations. The page's
 * context needs `bypassCSP: true`: the site's Content-Security-Policy forbids injected scripts.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  source ??= readFile(axePath, 'utf8');
  await page.addScriptTag({ content: await source });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Serious and critical violations, described for a failed expectation (`toEqual([])`). */
export async function axeProblems(page: Page): Promise<string[]> {
  return (await seriousViolations(page)).map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}
