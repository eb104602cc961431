/** The checker over each scenario's evidence against the faults that met it, and the soak's part of the reports. */
import { describe, expect, test } from 'vitest';
import type { MessagingEvidence } from '../../../src/engines/load/messaging-evidence.ts';
import type { DoneFault } from '../../../src/engines/soak/nemesis.ts';
import { findingsJson, soakFindings } from '../../../src/engines/soak/soak-findings.ts';
import { findingLines, findingsHtml, findingsMarkdown } from '../../../src/engines/soak/soak-report.ts';
import { parseSoakThresholds } from '../../../src/results/soak-thresholds.ts';

const evidence = (scenario: string, from: number, count: number, lostIndex?: number): MessagingEvidence => ({
  scenario,
  iterations: Array.from({ length: count }, (_, at) => ({
    index: at,
    fate: 'acknowledged' as const,
    sentAt: from + at * 100,
    answeredAt: from + at * 100 + 5,
    keys: [`delivery:${at}/e0`],
    ids: [`msg_<${scenario}>_${at}`],
  })),
  arrivals: new Map(
    Array.from({ length: count }, (_, at) => at)
      .filter((at) => at !== lostIndex)
      .map((at) => [`delivery:${at}/e0`, { firstAt: from + at * 100 + 50, count: 1 }]),
  ),
  droppedFates: 0,
  droppedIds: 0,
});
const fault = (id: string, startAt: number, healedAt: number, over: Partial<DoneFault> = {}): DoneFault => ({
  id,
  text: 'kill every 1s',
  action: 'kill',
  plannedStartMs: 0,
  startAt,
  healedAt,
  ...over,
});

describe('soakFindings', () => {
  test("each scenario is judged against the faults that met its span; one healed after its last send is cut; a failed one is none's", () => {
    const findings = soakFindings(
      [evidence('first', 0, 10, 3), evidence('second', 5000, 10)],
      [
        fault('f1-1', 250, 400),
        fault('f1-2', 850, 1200),
        fault('f1-3', 5200, 5300),
        fault('f1-4', 7000, 7100, { error: 'no process' }),
      ],
      parseSoakThresholds([]),
    );
    const [first, second] = findings.scenarios;
    expect(first?.check.faults.map((item) => [item.id, item.cut ?? false])).toEqual([
      ['f1-1', false],
      ['f1-2', true],
    ]);
    expect(first?.check.lost).toEqual([
      { key: 'delivery:3/e0', index: 3, sentAt: 300, faults: ['f1-1', 'f1-2'], ids: ['msg_<first>_3'] },
    ]);
    expect(second?.check.faults.map((item) => item.id)).toEqual(['f1-3']);
    expect(findings.ok).toBe(false);
    expect(findingsJson(findings).scenarios[0]).toMatchObject({
      lostCount: 1,
      lost: [{ key: 'delivery:3/e0', sentAt: '1970-01-01T00:00:00.300Z' }],
    });
  });

  test('interrupted, the lists stand as found, not final, and no threshold of the soak judges them', () => {
    const findings = soakFindings([evidence('first', 0, 10, 3)], [], parseSoakThresholds([]), [], true);
    expect(findings).toMatchObject({ interrupted: true, ok: true, thresholds: [] });
    expect(findings.scenarios[0]?.check.lost).toHaveLength(1);
    expect(findingLines(findings)[0]).toContain('1 lost (interrupted: the wait was cut short, not final)');
  });

  test('the console, Markdown and HTML name the lost ids and a row per fault; HTML escapes what it shows', () => {
    const findings = soakFindings([evidence('first', 0, 10, 3)], [fault('f1-1', 250, 400)], parseSoakThresholds([]));
    const lines = findingLines(findings);
    expect(lines[0]).toBe(
      'soak: first: 10 acknowledged, 1 lost, 0 indeterminate (0 delivered), 0 refused, 0 duplicates',
    );
    expect(lines).toContain('soak threshold lost: count == 0: FAILED (1)');
    expect(lines.some((line) => line.startsWith('  lost delivery:3/e0 (iteration 3, msg_<first>_3)'))).toBe(true);
    expect(findingsMarkdown(findings)).toContain('| f1-1 kill every 1s | 0 | 0.005 s | never |');
    const html = findingsHtml(findings);
    expect(html).toContain('msg_&lt;first&gt;_3');
    expect(html).not.toContain('msg_<first>');
  });
});
