/**
 * The streams of a messaging scenario's accounting, in one order and under one name for every
 * reporter (console, summary.md, junit, index.html): deliveries first, then what they cause.
 */
import type { ArrivalSeriesPoint, MessagingAccounting, StreamAccounting } from '../results/load-run.ts';

/** The accounting's key of a stream, and the name its series points carry. */
export type StreamKey = keyof Pick<MessagingAccounting, 'delivery' | 'callbacks' | 'failureCallbacks' | 'waiters'>;

export interface StreamEntry {
  readonly key: StreamKey;
  readonly series: ArrivalSeriesPoint['stream'];
  /** How the reports name it: `delivery`, `callbacks`, `failure callbacks`, `waiters`. */
  readonly label: string;
  /** What its latency runs from and to (`publish → delivery`). */
  readonly latency: string;
  readonly accounting: StreamAccounting;
}

const streams: readonly Omit<StreamEntry, 'accounting'>[] = [
  { key: 'delivery', series: 'delivery', label: 'delivery', latency: 'publish → delivery' },
  { key: 'callbacks', series: 'callback', label: 'callbacks', latency: 'delivery → callback' },
  {
    key: 'failureCallbacks',
    series: 'failureCallback',
    label: 'failure callbacks',
    latency: 'publish → failure callback',
  },
  { key: 'waiters', series: 'waiter', label: 'waiters', latency: 'notify → waiter' },
];

/** The streams the scenario accounts for, in the reports' order. */
export function messagingStreams(messaging: MessagingAccounting): StreamEntry[] {
  return streams.flatMap((stream) => {
    const accounting = messaging[stream.key];
    return accounting ? [{ ...stream, accounting }] : [];
  });
}

/** Exact: nothing lost, nothing doubled, nothing unlooked-for, every signature good. */
export function streamExact(stream: StreamAccounting): boolean {
  return stream.lost === 0 && stream.duplicated === 0 && stream.unexpected === 0 && stream.badSignatures === 0;
}

/** `3 of 8000 lost` style facts of one stream, for a line of text. */
export function streamFacts(stream: StreamAccounting): string {
  return `${stream.received}/${stream.expected} received, ${stream.lost} lost, ${stream.duplicated} duplicated, ${stream.unexpected} unexpected, ${stream.badSignatures} bad signatures`;
}

/**
 * What the sink saw of a scenario besides its streams, one fact a part, for a line of text: accepted,
 * the wait after the load, strays, unclassified arrivals, signatures, and send → last arrival when kept.
 * `ms` formats a latency in milliseconds (the HTML rounds; summary.md keeps the model's figure).
 */
export function messagingFacts(messaging: MessagingAccounting, ms: (value: number) => string = String): string[] {
  const { signatures } = messaging;
  const complete = messaging.complete?.latencyMs;
  return [
    `${messaging.accepted} accepted`,
    `waited ${messaging.waitedS.toFixed(1)} s after the load`,
    `strays (requests to no open inbox) ${messaging.strays}`,
    `unclassified ${messaging.unclassified}`,
    `signatures ${signatures.verified} verified, ${signatures.failed} failed, ${signatures.unchecked} not checked, ${signatures.replays} replayed`,
    ...(complete && complete.count > 0
      ? [`send → last arrival p50 ${ms(complete.p50)} ms, p99 ${ms(complete.p99)} ms`]
      : []),
  ];
}

/** `endpoint:e3`; the tag sets of a stream in natural order (e2 before e10). */
export function tagText(tags: Readonly<Record<string, string>>): string {
  const text = Object.entries(tags)
    .map(([key, value]) => `${key}:${value}`)
    .join(' ');
  return text === '' ? '(untagged)' : text;
}

export function sortedByTags<T extends { readonly tags: Readonly<Record<string, string>> }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => tagText(a.tags).localeCompare(tagText(b.tags), 'en', { numeric: true }));
}
