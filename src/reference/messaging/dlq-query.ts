/**
 * `GET /v2/dlq`'s query as the official SDK sends it (`dlq.listMessages`): the filters (each may be
 * repeated: any of the values matches; different filters must all match), `count` and an opaque
 * `cursor`. Dead letters are listed oldest first; the cursor names the last one given, so a page
 * stays right when entries are removed between calls; it is absent on the last page.
 */
import type { DeadLetter } from './message-store.ts';
import { MessagingError } from './messaging-error.ts';
import type { StoredMessage } from './stored-message.ts';

/**
 * The most one page gives when `count` asks. Without `count` a page holds every match (no cursor):
 * clients that read the whole queue in one request (the accounting tests) keep working.
 */
export const maxDlqCount = 1000;

/** A filter on a field of the dead letter or of its message; values are OR-ed. */
const textFilters = {
  dlqIds: (entry: DeadLetter) => entry.dlqId,
  messageId: (entry: DeadLetter) => entry.messageId,
  url: (entry: DeadLetter) => entry.url,
  topicName: (_entry: DeadLetter, message?: StoredMessage) => message?.topicName,
  queueName: (_entry: DeadLetter, message?: StoredMessage) => message?.queue,
  callerIp: (_entry: DeadLetter, message?: StoredMessage) => message?.callerIP,
  responseStatus: (entry: DeadLetter) => String(entry.responseStatus),
  // Schedules, labels and flow control are not in the reference: nothing has them, nothing matches.
  scheduleId: () => undefined,
  label: () => undefined,
  flowControlKey: () => undefined,
} satisfies Record<string, (entry: DeadLetter, message?: StoredMessage) => string | undefined>;

type TextFilter = keyof typeof textFilters;

/** The filters that need the dead letter's message (the rest are on the entry). */
const messageFilters: readonly TextFilter[] = ['topicName', 'queueName', 'callerIp'];

export interface DlqQuery {
  readonly filters: ReadonlyMap<TextFilter, ReadonlySet<string>>;
  /** Unix milliseconds, inclusive, on the time the message became a dead letter. */
  readonly fromDate?: number;
  readonly toDate?: number;
  /** The page's size (infinite without `count`). */
  readonly count: number;
  /** Where the previous page ended: its last entry's time and id. */
  readonly after?: readonly [number, string];
}

function integer(text: string, what: string, min: number): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) < min) {
    throw new MessagingError(400, `invalid ${what}: ${JSON.stringify(text)}`);
  }
  return Number(text);
}

export function encodeCursor(entry: DeadLetter): string {
  return Buffer.from(JSON.stringify([entry.createdAt, entry.dlqId])).toString('base64url');
}

function decodeCursor(text: string): readonly [number, string] {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return [value[0], value[1]];
    }
  } catch {
    // Not ours: refused below.
  }
  throw new MessagingError(400, `invalid cursor ${JSON.stringify(text.slice(0, 80))}`);
}

/** The query of a `GET /v2/dlq` URL; a value it cannot read is a 400. Unknown parameters are ignored. */
export function parseDlqQuery(search: URLSearchParams): DlqQuery {
  const filters = new Map<TextFilter, Set<string>>();
  for (const name of Object.keys(textFilters) as TextFilter[]) {
    const values = search.getAll(name).filter((value) => value !== '');
    if (name === 'responseStatus') for (const value of values) integer(value, 'responseStatus', 0);
    if (values.length > 0) filters.set(name, new Set(values));
  }
  const date = (name: string) => {
    const text = search.get(name);
    return text === null || text === '' ? undefined : integer(text, name, 0);
  };
  const fromDate = date('fromDate');
  const toDate = date('toDate');
  const countText = search.get('count');
  const count =
    countText === null || countText === ''
      ? Number.POSITIVE_INFINITY
      : Math.min(integer(countText, 'count', 1), maxDlqCount);
  const cursor = search.get('cursor');
  return {
    filters,
    count,
    ...(fromDate !== undefined && { fromDate }),
    ...(toDate !== undefined && { toDate }),
    ...(cursor !== null && cursor !== '' && { after: decodeCursor(cursor) }),
  };
}

export function needsMessages(query: DlqQuery): boolean {
  return messageFilters.some((name) => query.filters.has(name));
}

/** Oldest first; ties by id, so the order (and a cursor into it) is total. */
export function byTime(a: DeadLetter, b: DeadLetter): number {
  return a.createdAt - b.createdAt || (a.dlqId < b.dlqId ? -1 : a.dlqId > b.dlqId ? 1 : 0);
}

export function matches(query: DlqQuery, entry: DeadLetter, message: StoredMessage | undefined): boolean {
  if (query.fromDate !== undefined && entry.createdAt < query.fromDate) return false;
  if (query.toDate !== undefined && entry.createdAt > query.toDate) return false;
  if (query.after !== undefined) {
    const [time, id] = query.after;
    if (entry.createdAt < time || (entry.createdAt === time && entry.dlqId <= id)) return false;
  }
  for (const [name, values] of query.filters) {
    const value = textFilters[name](entry, message);
    if (value === undefined || !values.has(value)) return false;
  }
  return true;
}
