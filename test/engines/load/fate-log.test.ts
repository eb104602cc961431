/** Each publish's fate kept by index, bounded, merged across parts, and told by the scenarios' one rule. */
import { describe, expect, test } from 'vitest';
import { FateLog, mergeFates, publishRecords } from '../../../src/engines/load/fate-log.ts';
import { mergeParts, Recorder } from '../../../src/engines/load/recorder.ts';
import { tellFate } from '../../../src/protocol/messaging-load.ts';
import type { Tally } from '../../../src/protocol/scenario.ts';

describe('FateLog', () => {
  test('keeps each fate with its times and ids, read back as records', () => {
    const log = new FateLog();
    log.add(3, 'acknowledged', 1000, 1010, ['msg_a', 'msg_b']);
    log.add(4, 'indeterminate', 1100, undefined);
    log.add(5, 'refused', 1200, 1205);
    expect([...publishRecords(log.part())]).toEqual([
      { index: 3, fate: 'acknowledged', sentAt: 1000, answeredAt: 1010, ids: ['msg_a', 'msg_b'] },
      { index: 4, fate: 'indeterminate', sentAt: 1100 },
      { index: 5, fate: 'refused', sentAt: 1200, answeredAt: 1205 },
    ]);
  });

  test('past its limits it keeps counting what it did not keep, never more', () => {
    const log = new FateLog({ fates: 2, ids: 1 });
    log.add(0, 'acknowledged', 0, 1, ['msg_0']);
    log.add(1, 'acknowledged', 0, 1, ['msg_1']);
    log.add(2, 'acknowledged', 0, 1, ['msg_2']);
    const part = log.part();
    expect(part.index).toEqual([0, 1]);
    expect(part.ids).toEqual(['msg_0', '']);
    expect(part).toMatchObject({ droppedFates: 1, droppedIds: 1 });
  });

  test("parts merge by concatenation, and a recorder's part carries them (not its once-a-second totals)", () => {
    const a = new Recorder(0);
    const b = new Recorder(0);
    a.tallyApi.fate?.(0, 'acknowledged', 10, ['msg_0']);
    b.tallyApi.fate?.(1, 'indeterminate', 20);
    expect(a.totals().fates).toBeUndefined();
    const merged = mergeParts([a.part(), b.part()]);
    expect([...publishRecords(merged.fates ?? mergeFates([]))].map((item) => [item.index, item.fate])).toEqual([
      [0, 'acknowledged'],
      [1, 'indeterminate'],
    ]);
    expect(mergeParts([new Recorder(0).part()]).fates).toBeUndefined();
  });
});

describe('tellFate', () => {
  const told: unknown[][] = [];
  const tally: Tally = { add() {}, mark() {}, fate: (...args) => told.push(args) };
  const request = { body: '{"i":7,"t":1234}', meta: 7 };

  test('ids read from a success answer: acknowledged; no answer or a gateway: indeterminate; else refused', () => {
    told.length = 0;
    tellFate(tally, request, { status: 200, body: '' }, ['msg_7']);
    tellFate(tally, request, null, undefined);
    tellFate(tally, request, { status: 503, body: '' }, undefined);
    tellFate(tally, request, { status: 429, body: '' }, undefined);
    tellFate(tally, request, { status: 200, body: '[]' }, undefined);
    expect(told).toEqual([
      [7, 'acknowledged', 1234, ['msg_7']],
      [7, 'indeterminate', 1234, undefined],
      [7, 'indeterminate', 1234, undefined],
      [7, 'refused', 1234, undefined],
      [7, 'refused', 1234, undefined],
    ]);
  });
});
