/**
 * The signing keys (spec "Signing keys (area A)") and the `Svc-Signature` JWT of every request the
 * reference sends. The keys live in Redis, so a restart keeps them; rotation makes the old next key
 * current and issues a fresh next key, in one script. The JWT follows the real service: HS256 keyed
 * with the key string's UTF-8 bytes; `sub` the URL called, `body` the base64url SHA-256 of the raw
 * body (with `=` padding, which receivers compare without), `exp` five minutes after `iat`.
 *
 * The token is made with node:crypto's HMAC rather than jose: every delivery and callback is signed,
 * and jose's WebCrypto path (an async key import and sign per token) cost about 190 µs a token, 12% of
 * the reference's CPU at saturation, where HMAC costs about 20 µs (bench/messaging-throughput-compare.ts).
 * A compact HS256 JWS is the three base64url parts; the tests verify these tokens with jose.
 */
import { createHmac, createSecretKey, hash, type KeyObject, randomBytes } from 'node:crypto';
import { LuaScript, type MessagingRedis } from './lua-script.ts';

export interface SigningKeys {
  readonly current: string;
  readonly next: string;
}

const keysKey = 'svc:ref:keys';
/** The JWS protected header of every token, base64url (RFC 7515 §7.1). */
const protectedHeader = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const jtiBytes = 12;

/**
 * Random bytes for token ids, drawn from a block filled at once: a randomBytes call per token was a
 * quarter of the signing cost.
 */
class RandomPool {
  #block = Buffer.alloc(0);
  #at = 0;

  take(bytes: number): Buffer {
    if (this.#at + bytes > this.#block.length) {
      this.#block = randomBytes(4096);
      this.#at = 0;
    }
    this.#at += bytes;
    return this.#block.subarray(this.#at - bytes, this.#at);
  }
}

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

/** What a token carries beyond the claims every token has (silence switches change it). */
export interface TokenShape {
  /** A jti claim (optional in RFC 7519). @default true */
  readonly jti?: boolean;
  /** The body claim with its base64url `=` padding. @default true */
  readonly padded?: boolean;
}

export class SigningKeyStore {
  readonly #redis: MessagingRedis;
  readonly #issuer: string;
  #keys: SigningKeys;
  /** The current key as an HMAC key object (made once per key, not per token). */
  #hmacKey: { readonly key: string; readonly object: KeyObject } | undefined;
  readonly #random = new RandomPool();

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

  /**
   * The signature of a request to `url` with `body`, by the current key. `ageSeconds` back-dates the
   * token (only a fault switch asks for it: a stale token on a retry).
   */
  sign(url: string, body: Buffer, ageSeconds = 0, shape: TokenShape = {}): string {
    // The body claim is base64url WITH its padding (a SHA-256 is 32 bytes: one '='), unless the silence
    // drops it; the one-shot hash makes no Hash object per request.
    const digest = `${hash('sha256', body, 'base64url')}${shape.padded === false ? '' : '='}`;
    const now = Math.floor(Date.now() / 1000) - ageSeconds;
    const claims = {
      body: digest,
      iss: this.#issuer,
      sub: url,
      iat: now,
      nbf: now,
      exp: now + 300,
      ...(shape.jti !== false && { jti: `jwt_${this.#random.take(jtiBytes).toString('base64url')}` }),
    };
    const input = `${protectedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    // RFC 7515 §5.1: the signature is over the ASCII of `header.payload`; RFC 7518 §3.2: HS256 is HMAC SHA-256.
    return `${input}.${createHmac('sha256', this.#currentHmacKey()).update(input).digest('base64url')}`;
  }

  #currentHmacKey(): KeyObject {
    const key = this.#keys.current;
    if (this.#hmacKey?.key !== key) this.#hmacKey = { key, object: createSecretKey(Buffer.from(key, 'utf8')) };
    return this.#hmacKey.object;
  }
}
