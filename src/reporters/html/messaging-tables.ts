/**
 * The accounting table of a messaging scenario in index.html: a row per stream (expected, received,
 * lost, duplicated, unexpected, bad signatures, latency, exact or not), then a row per tag set the
 * stream is kept by (publish-fanout's endpoints), and a line on what the sink saw besides.
 */
import type { MessagingAccounting } from '../../results/load-run.ts';
import { messagingFacts, messagingStreams, sortedByTags, streamExact, tagText } from '../messaging-streams.ts';
import { type Cell, formatMs, type Text, table, verdictCell } from './markup.ts';

const html = (text: string): Cell => ({ html: text });

export function messagingTable(t: Text, messaging: MessagingAccounting): string {
  const rows: Cell[][] = messagingStreams(messaging).flatMap(({ label, latency, accounting }) => [
    [
      html(`<strong>${t(label)}</strong> <small class="quiet">${t(latency)}</small>`),
      accounting.expected,
      accounting.received,
      accounting.lost,
      accounting.duplicated,
      accounting.unexpected,
      accounting.badSignatures,
      html(formatMs(accounting.latencyMs.p50)),
      html(formatMs(accounting.latencyMs.p99)),
      verdictCell(streamExact(accounting)),
    ],
    ...sortedByTags(accounting.byTags).map((item): Cell[] => [
      html(`&nbsp;&nbsp;${t(tagText(item.tags))}`),
      item.expected,
      item.received,
      item.lost,
      item.duplicated,
      // Kept per stream only: an arrival nobody expects has no tag set.
      null,
      null,
      html(formatMs(item.latencyMs.p50)),
      html(formatMs(item.latencyMs.p99)),
      verdictCell(item.lost === 0 && item.duplicated === 0),
    ]),
  ]);
  if (rows.length === 0) return '';
  return [
    table(
      'messaging accounting',
      [
        'stream',
        'expected',
        'received',
        'lost',
        'duplicated',
        'unexpected',
        'bad signatures',
        'p50 ms',
        'p99 ms',
        'exact',
      ],
      rows,
    ),
    `<p class="quiet messaging-facts">${t(messagingFacts(messaging, formatMs).join(' · '))}</p>`,
  ].join('\n');
}
