/**
 * The signing keys (spec "Signing keys (area A)") and the `Svc-Signature` JWT of every request the
 * reference sends. The keys live in Redis, so a restart keeps them; rotation makes the old next key
 * current and issues a fresh next key, in one script. The JWT follows the real service: HS256 keyed
 * with the key string's UTF-8 bytes; `sub` the URL called, `body` the base64url SHA-256 of the raw
 * body (with `=` padding, which receivers compare without), `exp` five minutes after `iat`.
 */
import { createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { LuaScript, type MessagingRedis } from './lua-script.ts';

export interface SigningKeys {
  readonly current: string;
  readonly next: string;
}

const keysKey = 'svc:ref:keys';

function newKey(): string {
  return `sig_${randomBytes(21).toString('base64url')}`;
}

// KEYS[1] the keys hash; ARGV[1] the fresh next key, ARGV[2] '1' to promote next (else keep current).
const rotateScript = new LuaScript(`
local next = redis.call('HGET', KEYS[1], 'next')
if ARGV[2] == '1' then redis.call('HSET', KEYS[1], 'current', next) end
redis.call('HSET', KEYS[1], 'next', ARGV[1])
return redis.call('HMGET', KEYS[1], 'current', 'next')
`);

export class SigningKeyStore {
  readonly #redis: MessagingRedis;
  readonly #issuer: string;
  #keys: SigningKeys;
  readonly #secrets = new Map<string, KeyObject>();

  private constructor(redis: MessagingRedis, keys: SigningKeys, issuer: string) {
    this.#redis = redis;
    this.#keys = keys;
    this.#issuer = issuer;
  }

  /** Reads the keys, creating them on the first start on this Redis. */
  static async open(redis: MessagingRedis, issuer: string): Promise<SigningKeyStore> {
    await redis.sendCommand(['HSETNX', keysKey, 'current', newKey()]);
    await redis.sendCommand(['HSETNX', keysKey, 'next', newKey()]);
    const [current, next] = (await redis.sendCommand(['HMGET', keysKey, 'current', 'next'])) as string[];
    return new SigningKeyStore(redis, { current: String(current), next: String(next) }, issuer);
  }

  get keys(): SigningKeys {
    return this.#keys;
  }

  async rotate(promote: boolean): Promise<SigningKeys> {
    const [current, next] = (await rotateScript.run(
      this.#redis,
      [keysKey],
      [newKey(), promote ? '1' : '0'],
    )) as string[];
    this.#keys = { current: String(current), next: String(next) };
    return this.#keys;
  }

  #secret(key: string): KeyObject {
    let secret = this.#secrets.get(key);
    if (secret === undefined) {
      secret = createSecretKey(Buffer.from(key, 'utf8'));
      this.#secrets.set(key, secret);
    }
    return secret;
  }

  /**
   * The signature of a request to `url` with `body`, by the current key. `ageSeconds` back-dates the
   * token (only a fault switch asks for it: a stale token on a retry).
   */
  async sign(url: string, body: Buffer, ageSeconds = 0): Promise<string> {
    const digest = createHash('sha256').update(body).digest('base64').replaceAll('+', '-').replaceAll('/', '_');
    const now = Math.floor(Date.now() / 1000) - ageSeconds;
    return new SignJWT({ body: digest })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.#issuer)
      .setSubject(url)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 300)
      .setJti(`jwt_${randomBytes(12).toString('base64url')}`)
      .sign(this.#secret(this.#keys.current));
  }
}
