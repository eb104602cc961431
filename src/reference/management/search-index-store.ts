/**
 * Search indexes in the reference's Redis, one JSON string per index under `svc:ref:search:<id>`,
 * so they outlive a restart of the reference. What is stored is the object as it was answered on
 * creation: GET answers that same object.
 */
import type { AreaRedis } from '../account/area-redis.ts';
import type { WireObject } from './index-answer.ts';

export const searchKeyPrefix = 'svc:ref:search:';

export class SearchIndexStore {
  readonly #redis: AreaRedis;

  constructor(redis: AreaRedis) {
    this.#redis = redis;
  }

  async save(id: string, index: WireObject): Promise<void> {
    await this.#redis.set(`${searchKeyPrefix}${id}`, JSON.stringify(index));
  }

  /** The index of that id, or undefined when there is none. */
  async get(id: string): Promise<WireObject | undefined> {
    const raw = await this.#redis.get(`${searchKeyPrefix}${id}`);
    if (raw === null) return undefined;
    return JSON.parse(String(raw)) as WireObject;
  }
}
