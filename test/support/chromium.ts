/**
 * Headless Chromium for the page tests, through playwright-core with the system's browser (Debian's
 * chromium package) rather than a downloaded one: nothing is fetched at test time. A missing browser
 * fails the test with one line saying how to get one; a skip would let an unrendered report pass CI.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** What a report page drew, and what it tried that failed. */
export interface Rendered {
  readonly expected: number;
  readonly rendered: number;
  /** Per `[data-chart]` container: its id, its canvas's size (0 × 0 when it has none), the fault bands it drew. */
  readonly canvases: readonly {
    readonly id: string;
    readonly width: number;
    readonly height: number;
    readonly bands: number;
  }[];
  readonly errors: readonly string[];
  readonly blocked: readonly string[];
  /** The first chart's legend as a reader sees it: away from the plot, and with the cursor on it. */
  readonly legend?: { readonly idle: string; readonly hovered: string };
}

/** Opens the page offline, waits for the charts, and screenshots it as index.png beside it. */
export async function openReport(browser: Browser, file: string): Promise<Rendered> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  // The report must be self-contained: anything but the file itself is refused and noted.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  try {
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-charts-rendered]', { timeout: 30_000 }).catch((error: unknown) => {
      // The script never finished (it did not parse, the data did not): say what the page said.
      throw new Error(`the charts never settled: ${[String(error), ...errors].join(' | ')}`);
    });
    // Attributes and boxes, not page.evaluate: the project's TypeScript has no DOM types.
    const body = page.locator('body');
    const expected = Number(await body.getAttribute('data-charts-expected'));
    const rendered = Number(await body.getAttribute('data-charts-rendered'));
    const canvases = [];
    for (const container of await page.locator('[data-chart]').all()) {
      const id = (await container.getAttribute('data-chart')) ?? '';
      const canvas = container.locator('canvas');
      const box = (await canvas.count()) === 1 ? await canvas.boundingBox() : null;
      const bands = Number((await container.getAttribute('data-bands')) ?? 0);
      canvases.push({ id, width: box?.width ?? 0, height: box?.height ?? 0, bands });
    }
    await page.screenshot({ path: join(file, '..', 'index.png'), fullPage: true });
    let legend: Rendered['legend'];
    const first = page.locator('[data-chart]').first();
    if ((await first.locator('.u-legend').count()) === 1) {
      const idle = await first.locator('.u-legend').innerText();
      await first.locator('.u-over').hover();
      legend = { idle, hovered: await first.locator('.u-legend').innerText() };
    }
    return { expected, rendered, canvases, errors, blocked, ...(legend && { legend }) };
  } finally {
    await page.close();
  }
}
