/** index.html: placeholder until the HTML reporter lands (a helper is writing it). */
import type { Reporter } from '../results/reporter.ts';

export function createHtmlReporter(): Reporter {
  return { name: 'html', file: 'index.html' };
}
