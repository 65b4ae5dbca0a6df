/**
 * What the browser suites share: Debian's Chromium (no browser download), the two widths every page is checked at,
 * logging in, and the check of what a user would notice on any page (sideways scroll, console errors, serious
 * accessibility faults found by axe-core).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

import { ROOT_PASSWORD } from '@federa/testing';

export const ROOT = join(import.meta.dirname, '../../..');
const UI = join(ROOT, 'packages/ui');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];

export const WIDTHS = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Builds the UI when this checkout has no build yet, makes the screenshot folder, and starts Chromium. */
export async function launch(shots: string): Promise<Browser> {
  mkdirSync(shots, { recursive: true });
  if (!existsSync(join(UI, 'dist/index.html')))
    execFileSync('npx', ['vite', 'build'], { cwd: UI, stdio: 'ignore' });
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
}

export async function must<T>(r: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await r;
  if (status > 210) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

export async function login(page: Page, username = 'root', password = ROOT_PASSWORD): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Console errors and uncaught page errors, collected for {@link check}. */
export function collectErrors(page: Page, ignore?: RegExp): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !(ignore && ignore.test(m.text()))) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

/** What a user would notice: the page is wider than the screen, or the console reports an error. */
export async function check(page: Page, errors: string[], name: string): Promise<void> {
  // Expressions as text: this file is type-checked without the DOM's types.
  const overflow = (await page.evaluate(
    'document.documentElement.scrollWidth - window.innerWidth',
  )) as number;
  expect(overflow, `${name} scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
  expect(errors, `${name}: console errors`).toEqual([]);
  // Evaluated through the debugging protocol: the page's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE);
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  const violations = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(violations, `${name}: accessibility`).toEqual([]);
}
