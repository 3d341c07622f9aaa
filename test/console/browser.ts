// One headless Debian chromium per test file, driven by playwright-core (no browser download),
// and screenshots saved under test-output/console/ (gitignored) for people to look at.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const SCREENSHOT_DIR = join(process.cwd(), 'test-output', 'console');

export interface ConsoleBrowser {
  browser: Browser;
  /** A fresh context (its own cookies): one signed-in person. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    // playwright gives every launch a fresh temporary profile (it refuses --user-data-dir here).
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',],
  });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    browser,
    async newPage(viewport = { width: 1280, height: 800 }) {
      const context = await browser.newContext({ viewport });
      return context.newPage();
    },
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Signs in through the form, as a person would (the key typed into the password field). */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console/sign-in`);
  await page.fill('input[name=key]', key);
  await Promise.all([page.waitForURL(`${baseUrl}/console`), page.click('button[type=submit]')]);
}
