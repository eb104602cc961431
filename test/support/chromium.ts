/**
 * Headless Chromium for the page tests, through playwright-core with the system's browser (Debian's
 * chromium package) rather than a downloaded one: nothing is fetched at test time. A missing browser
 * fails the test with one line saying how to get one; a skip would let an unrendered report pass CI.
 */
import { accessSync, constants } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** The browser binary: `SVC_CHROMIUM`, else Debian's. */
export function chromiumPath(): string {
  return process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    throw new Error(
      `no Chromium at ${executablePath}: set SVC_CHROMIUM to a chromium binary, or apt-get install chromium`,
    );
  }
  // --no-sandbox: the tests run as root in containers, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}
