/**
 * The cases that did not pass, in index.html: why each one failed, readable without the JSON. Failures
 * first (fail, stale, error, blocked), grouped by target, area and suite file (the spec's section), each
 * case a collapsible `<details>` whose summary line names the verdict, the case, the rule it blames and
 * the start of its reason, and whose body has the whole reason, what the case expected, the last request
 * it sent as a curl line with the start of the answer, and its notes (the requests the sink got, what
 * the target answered). Every string goes through `Text` (redacted).
 */

import type { CaseResult, ConformanceRun } from '../../results/conformance-run.ts';
import { verdictRule } from '../../results/verdict.ts';
import { caseAnchor } from '../failures.ts';
import type { Text } from './markup.ts';

/** The verdicts shown, in the order a reader needs them: what fails the gate first. */
const shownKinds = ['fail', 'stale', 'error', 'blocked'] as const;
type ShownKind = (typeof shownKinds)[number];

const isShown = (result: CaseResult): result is CaseResult & { verdict: { kind: ShownKind; reason: string } } =>
  (shownKinds as readonly string[]).includes(result.verdict.kind);

/** How much of a reason the summary line shows; the body has all of it. */
const summaryReasonChars = 160;

/** `conformance/kv/pipeline.cases.ts` → `pipeline`: the suite file names the spec section it covers. */
function sectionOf(file: string): string {
  const name = file.split('/').at(-1) ?? file;
  return name.replace(/\.(cases|test)\.ts$/, '');
}

function caseDetails(t: Text, result: CaseResult & { verdict: { kind: ShownKind; reason: string } }): string {
  const { verdict } = result;
  const rule = verdictRule(verdict);
  const blamed = rule !== undefined && verdict.kind !== 'blocked' ? [rule] : result.rules;
  const firstLine = verdict.reason.split('\n')[0] ?? '';
  const short = firstLine.length > summaryReasonChars ? `${firstLine.slice(0, summaryReasonChars)}…` : firstLine;
  const notes =
    result.notes.length === 0
      ? ''
      : `<ul class="notes">${result.notes.map((note) => `<li>${t(note)}</li>`).join('')}</ul>`;
  return [
    `<details class="case ${verdict.kind}" id="${t(caseAnchor(result.target, result.caseId))}">`,
    `<summary><span class="verdict">${verdict.kind.toUpperCase()}</span> <code>${t(result.caseId)}</code> <small>[${t(blamed.join(', '))}]</small> ${t(short)}</summary>`,
    `<p>${t(result.title)}</p>`,
    `<pre class="reason">${t(verdict.reason)}</pre>`,
    `<p class="quiet">expected: ${t(result.expect)}</p>`,
    result.exchange === undefined
      ? ''
      : `<p class="quiet">the last request it sent, to reproduce it:</p><pre class="curl">${t(result.exchange.curl)}</pre><p class="quiet">the answer:</p><pre class="answer">${t(result.exchange.answer)}</pre>`,
    notes,
    '</details>',
  ].join('');
}

/** Groups in first-seen order, keyed by `key`. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return [...groups];
}

export function caseDetailsSection(t: Text, run: ConformanceRun): string {
  const parts: string[] = [];
  for (const target of run.targets) {
    const shown = target.cases
      .filter(isShown)
      .sort((a, b) => shownKinds.indexOf(a.verdict.kind) - shownKinds.indexOf(b.verdict.kind));
    if (shown.length === 0) continue;
    const counts = shownKinds
      .map((kind) => [kind, shown.filter((result) => result.verdict.kind === kind).length] as const)
      .filter(([, count]) => count > 0)
      .map(([kind, count]) => `${count} ${kind}`)
      .join(', ');
    const byArea = groupBy(shown, (result) => result.area).map(([area, results]) => {
      const bySection = groupBy(results, (result) => sectionOf(result.file)).map(
        ([section, cases]) =>
          `<h5>${t(section)} <small class="quiet">${cases.length}</small></h5>${cases.map((result) => caseDetails(t, result)).join('\n')}`,
      );
      return `<h4>${t(area)}</h4>${bySection.join('\n')}`;
    });
    const heading = run.targets.length > 1 ? ` on ${t(target.name)}` : '';
    parts.push(
      `<div class="failures"><h3>Cases that did not pass${heading} <small class="quiet">${t(counts)}</small></h3>${byArea.join('\n')}</div>`,
    );
  }
  return parts.join('\n');
}
